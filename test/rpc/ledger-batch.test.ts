/** Methods the ledger relay keeps out of batches, as the official relay does (its BATCH_REQUESTS_DISALLOWED_METHODS). */
import { expect } from 'chai';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { OFFICIAL_BATCH_DISALLOWED_METHODS } from '../../src/config/schema.js';

describe('ledger relay batches with the official relay\'s relay.batchDisallowedMethods', () => {
  let t: TestGateway;
  before(async () => (t = await startTestGateway({ relay: { batchDisallowedMethods: OFFICIAL_BATCH_DISALLOWED_METHODS } })));
  after(() => t?.close());

  it('refuses each disallowed method inside a batch with -32007 naming it, and answers the rest', async () => {
    const batch = [...OFFICIAL_BATCH_DISALLOWED_METHODS, 'eth_chainId'].map((method, id) => ({ jsonrpc: '2.0', id, method, params: [] }));
    const { status, json } = await rpc(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`, batch);
    expect(status).to.equal(200);
    expect(json.map((r: any) => r.id)).to.deep.equal(batch.map((c) => c.id));
    expect(json.slice(0, -1).map((r: any) => r.error)).to.deep.equal(
      OFFICIAL_BATCH_DISALLOWED_METHODS.map((method) => ({ code: -32007, message: `Method ${method} is not permitted as part of batch requests` })),
    );
    expect(json.at(-1).result).to.equal('0x128');
  });

  it('answers the same methods on their own, and in batches on EVM chains', async () => {
    const single = await rpc(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_newBlockFilter', params: [] });
    expect(single.json.result).to.match(/^0x[0-9a-f]+$/);
    const evm = await rpc(`${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`, [{ jsonrpc: '2.0', id: 1, method: 'eth_newBlockFilter', params: [] }]);
    expect(evm.json[0].result).to.match(/^0x[0-9a-f]+$/);
  });
});

describe('ledger relay batches by default', () => {
  let t: TestGateway;
  before(async () => (t = await startTestGateway()));
  after(() => t?.close());

  it('answers every method in a batch (ethers batches eth_newFilter with the calls around it)', async () => {
    const { json } = await rpc(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`, [
      { jsonrpc: '2.0', id: 1, method: 'eth_newBlockFilter', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ]);
    expect(json[0].result).to.match(/^0x[0-9a-f]+$/);
    expect(json[1].result).to.equal('0x128');
  });
});

describe('ledger relay errors with relay.requestIdInErrors', () => {
  let t: TestGateway;
  before(async () => (t = await startTestGateway({ relay: { requestIdInErrors: true, batchDisallowedMethods: ['eth_newFilter'] } })));
  after(() => t?.close());

  it("lead with the request's id, as the official relay words them, in single calls and batches alike", async () => {
    const url = `${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`;
    const single = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', 'latest', null] });
    const id = single.headers.get('x-request-id');
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    expect(single.json.error).to.deep.equal({ code: -32602, message: `[Request ID: ${id}] Invalid params: expected at most 2 params, got 3` });
    const batch = await rpc(url, [
      { jsonrpc: '2.0', id: 1, method: 'eth_newFilter', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ]);
    const batchId = batch.headers.get('x-request-id');
    expect(batch.json.map((r: any) => r.error?.message ?? r.result)).to.deep.equal([`[Request ID: ${batchId}] Method eth_newFilter is not permitted as part of batch requests`, '0x128']);
  });

  it('name a param by its index and answer a lone JSON string -32700 on the ledger, with the id once; EVM routes keep -32600', async () => {
    const url = `${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`;
    const missing = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [] });
    expect(missing.json.error).to.deep.equal({ code: -32602, message: `[Request ID: ${missing.headers.get('x-request-id')}] Missing value for required parameter 0` });
    const refused = await rpc(url, { jsonrpc: '2.0', id: 2, method: 'eth_coinbase', params: [] });
    expect(refused.json.error).to.deep.equal({ code: -32601, message: `[Request ID: ${refused.headers.get('x-request-id')}] Unsupported JSON-RPC method` });
    const lone = await rpc(url, '"abc"');
    expect(lone.json.error.code).to.equal(-32700);
    expect(lone.json.error.message.match(/\[Request ID: /g)).to.have.length(1);
    const evm = await rpc(`${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`, '"abc"');
    expect(evm.json.error.code).to.equal(-32600);
  });
});
