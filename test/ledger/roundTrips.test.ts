/**
 * Sequential mirror-node round trips per call, which with a far mirror node are most of a call's latency. The fixture
 * mirror holds its answers until the relay has sent every request it can without them, then answers them together:
 * each such wave is one round trip. Nothing here measures time.
 */
import { expect } from 'chai';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { BLOCKS, RESULT_DETAILS, startFixtureMirror, type FixtureMirror } from './fixtureMirror.js';
import { result, testRelay } from './helpers.js';

/** Long enough that a relay on a busy machine has sent all it can before the held answers go out. */
const SETTLE_MS = 150;
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/** The paths the relay asked for in each round trip of `run`. */
async function roundTrips(mirror: FixtureMirror, run: () => Promise<unknown>): Promise<string[][]> {
  mirror.hold();
  let done = false;
  const answer = run().finally(() => (done = true));
  const waves: string[][] = [];
  let answered = mirror.paths.length;
  while (!done) {
    for (let seen = -1; seen !== mirror.paths.length; ) {
      seen = mirror.paths.length;
      await settle();
    }
    if (mirror.paths.length > answered) {
      waves.push(mirror.paths.slice(answered));
      answered = mirror.paths.length;
    }
    mirror.release();
    if (!done) mirror.hold();
    await settle();
  }
  mirror.release();
  await answer;
  return waves;
}

/** Whether every round trip after the second asks only for a sender's or recipient's entity (as the other kind of entity). */
const onlyParties = (waves: string[][]) => waves.slice(2).flat().every((p) => /^\/api\/v1\/(accounts|contracts)\/0x[0-9a-f]{40}(\?transactions=false)?$/.test(p));

describe('mirror-node round trips in sequence, cold', () => {
  let mirror: FixtureMirror;
  let relay: LedgerRelay;
  const hex = (n: number) => `0x${n.toString(16)}`;

  beforeEach(async () => {
    // A current mirror node takes hbar=false: a v0.145 one costs a retry without it on the first listing.
    mirror = await startFixtureMirror({ current: true });
    // `latest` kept for the default 500 ms, as a relay started with no configuration keeps it.
    relay = testRelay(296, { mirrorUrl: mirror.url }, { latestCacheMs: 500 });
  });
  afterEach(async () => {
    await relay.close();
    await mirror.close();
  });

  it('eth_getBlockByNumber reads a block’s contract results beside the block once a newer block is known', async () => {
    await result(relay, 'eth_blockNumber');
    // The block and its results; then the logs in its timestamp range and the fee schedule at its end.
    expect(await roundTrips(mirror, () => result(relay, 'eth_getBlockByNumber', [hex(18), true]))).to.have.length(2);
    expect(mirror.paths.filter((p) => p.startsWith('/api/v1/contracts/results?block.number=18&'))).to.have.length(1);
  });

  it('a block past the newest one seen is not read ahead: its empty listing could be kept for good', async () => {
    const waves = await roundTrips(mirror, () => result(relay, 'eth_getBlockByNumber', [hex(18), false]));
    expect(waves[0]).to.deep.equal(['/api/v1/blocks/18']);
    expect(waves).to.have.length(2);
  });

  it('eth_getBlockByHash reads the block’s contract results by its hash, beside the block', async () => {
    const hash = BLOCKS.find((b) => b.number === 18).hash.slice(0, 66);
    expect(await roundTrips(mirror, () => result(relay, 'eth_getBlockByHash', [hash, true]))).to.have.length(2);
    expect(mirror.paths.filter((p) => p.startsWith(`/api/v1/contracts/results?block.hash=${hash}&`))).to.have.length(1);
  });

  it('eth_getTransactionReceipt reads its logs beside it, then its block, its block’s results, the fees and its parties together', async () => {
    await relay.close();
    await mirror.close();
    // The fee schedule and the exchange rate unchanged since before the transaction: the current ones were in force.
    mirror = await startFixtureMirror({ current: true, feesSince: '1.000000000' });
    relay = testRelay(296, { mirrorUrl: mirror.url }, { latestCacheMs: 500 });
    const waves = await roundTrips(mirror, () => result(relay, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash]));
    expect(waves[0]).to.include(`/api/v1/contracts/results/logs?transaction.hash=${RESULT_DETAILS.hash}&limit=100&order=asc`);
    expect(waves[1]).to.include.members(['/api/v1/blocks/17', '/api/v1/network/fees', '/api/v1/network/exchangerate']);
    // Later only the parties' lookups as the other kind of entity: this payer is a contract, looked for as an account
    // first, and this recipient is neither.
    expect(onlyParties(waves), String(waves)).to.equal(true);
  });

  describe('a receipt older than the last change of the fees', () => {
    // Block 17 runs from …01.234500000 to …01.234600000; its transaction at its start; the bound its end is before: 3 s
    // after the transaction's second.
    const block = BLOCKS.find((b) => b.number === RESULT_DETAILS.block_number);
    const at = block.timestamp.from;
    const bound = `${Number(at.split('.')[0]) + 3}.000000000`;
    const receiptWith = async (feesSince: string) => {
      await relay.close();
      await mirror.close();
      mirror = await startFixtureMirror({ current: true, feesSince, resultTimestamp: at });
      relay = testRelay(296, { mirrorUrl: mirror.url }, { latestCacheMs: 500 });
      return roundTrips(mirror, () => result(relay, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash]));
    };
    /** The receipt where the fees never changed after it: what the block paid either way. */
    const unchangedReceipt = async () => {
      const unchanged = await startFixtureMirror({ current: true, feesSince: '1.000000000', resultTimestamp: at });
      const other = testRelay(296, { mirrorUrl: unchanged.url });
      try {
        return await result(other, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash]);
      } finally {
        await other.close();
        await unchanged.close();
      }
    };

    it('reads them as they were by its block’s end beside its block: no round trip more, and the same receipt', async () => {
      const waves = await receiptWith('1700000000.000000000');
      expect(waves[1]).to.include.members(['/api/v1/blocks/17', `/api/v1/network/fees?timestamp=lte:${bound}`, `/api/v1/network/exchangerate?timestamp=lte:${bound}`]);
      expect(onlyParties(waves), String(waves)).to.equal(true);
      expect(mirror.paths).to.not.include(`/api/v1/network/fees?timestamp=lte:${block.timestamp.to}`);
      expect(await result(relay, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash])).to.deep.equal(await unchangedReceipt());
    });

    it('changed between its block’s end and that bound, reads them at the block’s end, one round trip later', async () => {
      const waves = await receiptWith('1676540002.000000000');
      expect(waves[2]).to.include(`/api/v1/network/fees?timestamp=lte:${block.timestamp.to}`);
      expect(await result(relay, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash])).to.deep.equal(await unchangedReceipt());
    });
  });

  it('eth_getBalance at a block reads the block beside the head', async () => {
    expect(await roundTrips(mirror, () => result(relay, 'eth_getBalance', [`0x${'12'.repeat(20)}`, hex(17)]))).to.have.length(2);
  });

  it('eth_getLogs over blocks named by number reads them beside the head', async () => {
    expect(await roundTrips(mirror, () => result(relay, 'eth_getLogs', [{ fromBlock: hex(17), toBlock: hex(18) }]))).to.have.length(2);
  });
});
