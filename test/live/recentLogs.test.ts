import { expect } from 'chai';
import type { ChainLog } from '../../src/live/criteria.js';
import { RECENT_LOGS_BYTES, advance, removedLogs, type BlockHeader, type ChainSource } from '../../src/live/source.js';

const hex = (n: number) => `0x${n.toString(16)}`;
/** Each block has one log carrying `dataBytes` of data; `fork` gives the blocks from that height other hashes. */
function chain(head: number, dataBytes: number, fork?: number): ChainSource {
  const hash = (n: number) => `0x${(fork !== undefined && n >= fork ? 'f' : 'a')}${n.toString(16).padStart(63, '0')}`;
  const header = (n: number): BlockHeader => ({ number: hex(n), hash: hash(n), parentHash: n === 0 ? `0x${'0'.repeat(64)}` : hash(n - 1) });
  return {
    head: async () => head,
    blocks: async (from, to) => Array.from({ length: Math.max(0, Math.min(to, head) - from + 1) }, (_, i) => header(from + i)),
    logs: async (_criteria, from, to) =>
      Array.from({ length: Number(to) - Number(from) + 1 }, (_, i): ChainLog & { data: string } => {
        const n = Number(from) + i;
        return { address: `0x${'12'.repeat(20)}`, topics: [`0x${'ab'.repeat(32)}`], data: `0x${'00'.repeat(dataBytes / 2)}`, blockNumber: hex(n), blockHash: hash(n) };
      }),
  };
}

describe('following a chain: logs kept for a reorganisation are bounded in bytes', () => {
  const perBlock = 200_000;
  const logsOf = (source: ChainSource) => (first: number, last: number) => source.logs({ address: [], topics: [] }, first, last);

  it('keeps the logs of the newest blocks that fit the bound, and the hashes of all 32', async () => {
    const source = chain(40, perBlock);
    const step = await advance(source, 0, [{ n: 0, hash: (await source.blocks(0, 0))[0].hash, logs: [] }], logsOf(source));
    expect(step.recent).to.have.length(32);
    const withLogs = step.recent.filter((b) => (b.logs ?? []).length > 0);
    expect(withLogs.length).to.be.within(1, Math.floor(RECENT_LOGS_BYTES / perBlock));
    expect(withLogs.map((b) => b.n)).to.deep.equal(step.recent.slice(-withLogs.length).map((b) => b.n));
    expect(JSON.stringify(step.recent).length).to.be.at.most(RECENT_LOGS_BYTES + 32 * 200);
  });

  it('a reorganisation deeper than the kept logs still replaces every block, re-sending the logs it kept', async () => {
    const before = chain(40, perBlock);
    const first = await advance(before, 0, [{ n: 0, hash: (await before.blocks(0, 0))[0].hash, logs: [] }], logsOf(before));
    const after = chain(41, perBlock, 30);
    const step = await advance(after, first.cursor, first.recent, logsOf(after));
    expect(step.removed.map((b) => b.n)).to.deep.equal([30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40]);
    const resent = removedLogs(step.removed).map((l) => Number(l.blockNumber));
    expect(resent).to.deep.equal(first.recent.filter((b) => b.n >= 30 && (b.logs ?? []).length > 0).map((b) => b.n));
    expect(step.logs.map((l) => Number(l.blockNumber))).to.deep.equal([30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41]);
  });
});
