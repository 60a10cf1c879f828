/** Methods the ledger relay keeps out of batches, as the official relay does (its BATCH_REQUESTS_DISALLOWED_METHODS). */
import { expect } from 'chai';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';

const DISALLOWED = [
  'debug_traceTransaction',
  'debug_traceBlockByNumber',
  'eth_newFilter',
  'eth_uninstallFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
];

describe('ledger relay batches', () => {
  let t: TestGateway;
  before(async () => (t = await startTestGateway()));
  after(() => t?.close());

  it('refuses each disallowed method inside a batch with -32007 naming it, and answers the rest', async () => {
    const batch = [...DISALLOWED, 'eth_chainId'].map((method, id) => ({ jsonrpc: '2.0', id, method, params: [] }));
    const { status, json } = await rpc(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`, batch);
    expect(status).to.equal(200);
    expect(json.map((r: any) => r.id)).to.deep.equal(batch.map((c) => c.id));
    expect(json.slice(0, -1).map((r: any) => r.error)).to.deep.equal(
      DISALLOWED.map((method) => ({ code: -32007, message: `Method ${method} is not permitted as part of batch requests` })),
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
