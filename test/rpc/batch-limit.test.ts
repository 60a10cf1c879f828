/**
 * A batch past server.maxBatchSize through the gateway: the ledger chain refuses it as the official relay does (its
 * koaJsonRpc: HTTP 200, one -32203 error per request, as its jsonRpcCompliance suite expects); EVM chains with one
 * -32600 error.
 */
import { expect } from 'chai';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';

describe('a batch over the size limit', function () {
  let t: TestGateway;
  before(async () => (t = await startTestGateway({ server: { maxBatchSize: 100 } })));
  after(() => t?.close());

  const batch = Array.from({ length: 500 }, (_, i) => ({ jsonrpc: '2.0', id: `batch-${i}`, method: 'eth_blockNumber', params: [] }));

  it('on the ledger chain: 200 and an array of -32203 errors, one per request', async () => {
    const res = await rpc(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`, batch);
    expect(res.status).to.equal(200);
    expect(res.json).to.be.an('array').with.length(500);
    for (const entry of res.json) {
      expect(entry).to.deep.equal({ jsonrpc: '2.0', id: null, error: { code: -32203, message: 'Batch request amount 500 exceeds max 100' } });
    }
  });

  it('on an EVM chain: one -32600 error', async () => {
    const res = await rpc(`${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`, batch);
    expect(res.status).to.equal(200);
    expect(res.json).to.deep.include({ jsonrpc: '2.0', id: null }).and.have.nested.property('error.code', -32600);
  });
});
