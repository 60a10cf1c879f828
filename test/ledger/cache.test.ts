import { expect } from 'chai';
import { ReadCache } from '../../src/ledger/cache.js';

const MB = 1024 * 1024;
const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

describe('relay read cache: bounded in bytes', () => {
  it('holds no more than its byte bound of small entries, counting what each entry costs beyond its text', async () => {
    const cache = new ReadCache(MB);
    for (let i = 0; i < 20_000; i++) await cache.final(`evm:${address(i)}`, async () => address(i + 1));
    const { bytes, entries } = cache.stats();
    expect(bytes).to.be.at.most(MB);
    // An address entry costs about 400 bytes of heap: counted at its text alone (90 bytes) a 1 MB cache held 11,000.
    expect(entries).to.be.below(MB / 400);
  });

  it('evicts the least recently used answer text first when over its bound', async () => {
    const cache = new ReadCache(64 * 1024);
    const block = (n: number) => JSON.stringify({ number: `0x${n.toString(16)}`, padding: 'x'.repeat(2_000) });
    await cache.finalText('answer:0', async () => block(0));
    let loads = 0;
    for (let n = 1; n <= 100; n++) {
      await cache.finalText('answer:0', async () => (loads++, block(0)));
      await cache.finalText(`answer:${n}`, async () => block(n));
    }
    expect(loads, 'the answer used all along stayed').to.equal(0);
    await cache.finalText('answer:1', async () => (loads++, block(1)));
    expect(loads, 'an early one was evicted').to.equal(1);
    expect(cache.stats().bytes).to.be.at.most(64 * 1024);
  });
});
