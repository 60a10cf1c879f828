/**
 * `logIndex` is the log's position in its block (Ethereum JSON-RPC spec, HIP-482), not in its transaction: the relay
 * over the sandbox's mirror node, on a block whose two event-emitting calls are separate transactions. Every method
 * that shows a log must give it the same (block, logIndex), the key indexers store logs under.
 */
import { expect } from 'chai';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { buildFixture, type Fixture } from '../../packages/sandbox/test/mirror/fixture.js';
import { rpc, startTestGateway, withLedgerNetwork, type TestGateway } from '../support/gateway.js';
import { result, testRelay } from './helpers.js';

const hex = (n: number) => `0x${n.toString(16)}`;
const key = (log: any) => `${log.transactionHash}:${log.logIndex}`;

describe('ledger relay: logIndex is the position in the block', function () {
  let f: Fixture;
  let relay: LedgerRelay;
  before(async () => {
    f = await buildFixture();
    relay = testRelay(298, { mirrorUrl: f.mirror.url });
  });
  after(async () => {
    await relay?.close();
    await f?.close();
  });

  it('numbers the block’s logs 0, 1 across transactions, alike in eth_getLogs and in every receipt', async () => {
    const [inc1, inc2] = f.increments;
    const block = hex(f.blocks.calls.number);
    const logs = await result(relay, 'eth_getLogs', [{ fromBlock: block, toBlock: block }]);
    expect(logs.map((l: any) => [l.transactionHash, l.transactionIndex, l.logIndex])).to.deep.equal([
      [inc1.ethHash, hex(inc1.index), '0x0'],
      [inc2.ethHash, hex(inc2.index), '0x1'],
    ]);

    const byHash = await result(relay, 'eth_getLogs', [{ blockHash: logs[0].blockHash, address: f.contract.address }]);
    const receipts = await Promise.all([inc1, inc2].map((tx) => result(relay, 'eth_getTransactionReceipt', [tx.ethHash])));
    const blockReceipts = await result(relay, 'eth_getBlockReceipts', [block]);
    const expected = logs.map(key);
    expect(byHash.map(key)).to.deep.equal(expected);
    expect(receipts.flatMap((r: any) => r.logs).map(key)).to.deep.equal(expected);
    expect(blockReceipts.flatMap((r: any) => r.logs).map(key)).to.deep.equal(expected);
  });

  it('gives the same logIndex through a gateway filter (eth_newFilter, eth_getFilterLogs)', async () => {
    const block = hex(f.blocks.calls.number);
    const expected = (await result(relay, 'eth_getLogs', [{ fromBlock: block, toBlock: block }])).map(key);
    expect(expected.map((k: string) => k.split(':')[1])).to.deep.equal(['0x0', '0x1']);
    let t: TestGateway | undefined;
    try {
      t = await startTestGateway({ chains: withLedgerNetwork('testnet', { chainId: 298, ledger: { mirrorUrl: f.mirror.url, consensus: 'testnet' } }) });
      const url = `${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`;
      const call = async (method: string, params: unknown[]) => (await rpc(url, { jsonrpc: '2.0', id: 1, method, params })).json.result;
      const id = await call('eth_newFilter', [{ fromBlock: block, toBlock: block, address: f.contract.address }]);
      expect((await call('eth_getFilterLogs', [id])).map(key)).to.deep.equal(expected);
    } finally {
      await t?.close();
    }
  });

  it('starts again at 0 in the next block', async () => {
    const block = hex(f.blocks.last.number);
    const logs = await result(relay, 'eth_getLogs', [{ fromBlock: block, toBlock: block }]);
    expect(logs.map((l: any) => l.logIndex)).to.deep.equal(['0x0']);
  });
});
