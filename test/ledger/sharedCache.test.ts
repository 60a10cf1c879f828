import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { SharedCaches, type SharedCache, type SharedCacheOptions } from '../../src/ledger/sharedCache.js';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { eventually, RedisChild } from '../limits/support.js';
import { BLOCKS, BUSY_BLOCK, RESULT_DETAILS, startFixtureMirror, type FixtureMirror } from './fixtureMirror.js';
import { result, testRelay } from './helpers.js';
import { registry } from '../../src/metrics.js';
import { rpc, startTestGateway, withLedgerNetwork, type TestGateway } from '../support/gateway.js';

const OPTIONS: SharedCacheOptions = { bytes: 8 * 1024 * 1024, ttlMs: 600_000, maxEntryBytes: 1024 * 1024 };
const hex = (n: number) => `0x${n.toString(16)}`;

/** Resolves once `cache` reaches Redis again: a lookup that counts no fault. */
async function onRedis(cache: SharedCache): Promise<void> {
  await eventually(async () => {
    const faults = cache.stats().faults;
    await cache.text(`probe:${randomBytes(4).toString('hex')}`, async () => null);
    return cache.stats().faults === faults;
  }, 'an instance back on Redis');
}

/** Two gateway instances' relays on one Redis, in front of one mirror node that counts its requests. */
describe('ledger relay: final answers shared across instances through Redis', () => {
  let redis: RedisChild;
  let mirror: FixtureMirror;
  let instances: SharedCaches[] = [];
  let relays: LedgerRelay[] = [];
  let shared: SharedCache[] = [];

  before(async () => (redis = await RedisChild.start()));
  after(async () => redis.down());

  async function start(count: number, opts: SharedCacheOptions = OPTIONS): Promise<void> {
    mirror = await startFixtureMirror({ current: true });
    // A fresh network per test, so no test finds another's answers.
    const network = `test-${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < count; i++) {
      const caches = await SharedCaches.open(redis.url, opts);
      instances.push(caches);
      shared.push(caches.network(network, mirror.url));
      relays.push(testRelay(296, { mirrorUrl: mirror.url }, {}, { sharedCache: shared[i] }));
    }
    for (const s of shared) await onRedis(s);
  }
  afterEach(async () => {
    await Promise.all(relays.map((r) => r.close()));
    await Promise.all(instances.map((c) => c.close()));
    await mirror.close();
    [instances, relays, shared] = [[], [], []];
  });

  it("the second instance's read of a final block or receipt makes no mirror request", async () => {
    await start(2);
    const [a, b] = relays;
    const block = await result(a, 'eth_getBlockByNumber', [hex(BUSY_BLOCK), true]);
    const receipt = await result(a, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash]);
    const asked = mirror.paths.length;
    expect(asked).to.be.above(0);
    expect(await result(b, 'eth_getBlockByNumber', [hex(BUSY_BLOCK), true])).to.deep.equal(block);
    expect(await result(b, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash])).to.deep.equal(receipt);
    expect(mirror.paths.length, 'mirror requests after the second instance read').to.equal(asked);
  });

  it("an eth_getLogs answer shared by one instance costs the other no read of the range's blocks", async () => {
    await start(2);
    const [a, b] = relays;
    const filter = { fromBlock: hex(BUSY_BLOCK - 1), toBlock: hex(BUSY_BLOCK) };
    const logs = await result(a, 'eth_getLogs', [filter]);
    const asked = mirror.paths.length;
    expect(await result(b, 'eth_getLogs', [filter])).to.deep.equal(logs);
    // The head is each instance's own; the blocks b reads ahead of the shared answer are a's.
    const blockReads = mirror.paths.slice(asked).filter((p) => /^\/api\/v1\/blocks\/\d/.test(p));
    expect(blockReads, 'blocks read again by the second instance').to.deep.equal([]);
  });

  it('shares nothing between two ledgers under one network id (a sandbox restarted, or one per instance)', async () => {
    await start(1);
    await result(relays[0], 'eth_getBlockByNumber', [hex(BUSY_BLOCK), true]);
    const other = await startFixtureMirror({ current: true });
    const caches = await SharedCaches.open(redis.url, OPTIONS);
    const elsewhere = testRelay(296, { mirrorUrl: other.url }, {}, { sharedCache: caches.network(shared[0].network, other.url) });
    try {
      await result(elsewhere, 'eth_getBlockByNumber', [hex(BUSY_BLOCK), true]);
      expect(other.paths.some((p) => p.startsWith(`/api/v1/blocks/${BUSY_BLOCK}`)), 'the other ledger was asked for its own block').to.equal(true);
    } finally {
      await elsewhere.close();
      await caches.close();
      await other.close();
    }
  });

  it('two instances missing the same block at once make one mirror request for it', async () => {
    await start(2);
    const [a, b] = relays;
    mirror.hold();
    const both = Promise.all([result(a, 'eth_getBlockByNumber', [hex(17), false]), result(b, 'eth_getBlockByNumber', [hex(17), false])]);
    // Both have missed before the mirror node answers anything: one loads, the other waits for its text.
    await eventually(() => shared.every((s) => s.stats().misses === 1), 'both instances missed');
    mirror.release();
    const [one, other] = await both;
    expect(one.number).to.equal(hex(17));
    expect(other).to.deep.equal(one);
    expect(mirror.paths.filter((p) => p.startsWith('/api/v1/blocks/17'))).to.have.length(1);
    expect(new Set(mirror.paths).size, 'no mirror request made twice').to.equal(mirror.paths.length);
  });

  it('with Redis stopped, each instance answers right from its own cache and the mirror node, and shares again once it is back', async () => {
    await start(2);
    const [a, b] = relays;
    const block19 = await result(a, 'eth_getBlockByNumber', [hex(19), false]);
    await redis.down();
    try {
      // Instance a still has block 19 in its own cache; b and block 18 go to the mirror node.
      const asked = mirror.paths.length;
      expect(await result(a, 'eth_getBlockByNumber', [hex(19), false])).to.deep.equal(block19);
      expect(mirror.paths.length).to.equal(asked);
      expect(await result(b, 'eth_getBlockByNumber', [hex(19), false])).to.deep.equal(block19);
      const block18 = await result(a, 'eth_getBlockByNumber', [hex(18), false]);
      expect(block18.hash).to.equal(BLOCKS.find((x) => x.number === 18).hash.slice(0, 66));
      expect(await result(b, 'eth_getBlockByNumber', [hex(18), false])).to.deep.equal(block18);
      expect(shared.every((s) => s.stats().faults > 0), 'both saw the fault').to.equal(true);
    } finally {
      await redis.up();
    }
    await onRedis(shared[0]);
    await result(a, 'eth_getBlockByNumber', [hex(16), false]);
    const asked = mirror.paths.length;
    await onRedis(shared[1]);
    await result(b, 'eth_getBlockByNumber', [hex(16), false]);
    expect(mirror.paths.length, 'block 16 came from Redis again').to.equal(asked);
  });

  it('keeps the shared texts within its byte bound, and shares no text past the entry size', async () => {
    const bound = 20 * 1024;
    await start(2, { ...OPTIONS, bytes: bound, maxEntryBytes: 4 * 1024 });
    const [a, b] = shared;
    const text = (i: number, size = 1024) => JSON.stringify({ i, pad: 'x'.repeat(size) });
    let loads = 0;
    for (let i = 0; i < 60; i++) await a.text(`answer:${i}`, async () => (loads++, text(i)));
    expect(loads).to.equal(60);
    const client = new Redis(redis.url);
    try {
      const keys = (await client.keys(`gw:{cache:${a.network}}:*`)).filter((k) => !k.includes(':bytes:') && !k.endsWith(':lock'));
      let held = 0;
      for (const k of keys) held += k.length + (await client.strlen(k));
      expect(held).to.be.at.most(bound);
      expect(keys.length, 'the bound was filled').to.be.at.least(10);
    } finally {
      client.disconnect();
    }
    // The first texts were shared, the last ones found no room: the other instance loads only those.
    let loadsB = 0;
    for (let i = 0; i < 60; i++) expect(await b.text(`answer:${i}`, async () => (loadsB++, text(i)))).to.equal(text(i));
    expect(loadsB).to.be.within(40, 50);
    // A text past the entry size: the other instance loads it too.
    const big = text(99, 8 * 1024);
    await a.text('answer:big', async () => big);
    let bigLoads = 0;
    expect(await b.text('answer:big', async () => (bigLoads++, big))).to.equal(big);
    expect(bigLoads).to.equal(1);
  });
});

describe('gateways on one Redis share final ledger answers', () => {
  let redis: RedisChild;
  let mirror: FixtureMirror;
  let gateways: TestGateway[] = [];

  before(async () => {
    redis = await RedisChild.start();
    mirror = await startFixtureMirror({ current: true });
  });
  after(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await mirror.close();
    await redis.down();
  });

  it("a block one gateway read is the other's without a mirror request; with relay.sharedCacheBytes 0 it is not", async () => {
    const chains = withLedgerNetwork('testnet', { chainId: 296, ledger: { mirrorUrl: mirror.url, consensus: { '127.0.0.1:1': '0.0.3' } } });
    const start = (sharedCacheBytes?: number) => startTestGateway({ chains, limits: { redisUrl: redis.url }, relay: { sharedCacheBytes } });
    gateways = [await start(), await start(), await start(0)];
    const read = async (g: TestGateway, n: number) =>
      (await rpc(`${g.gw.url}/hedera-testnet/v1/${g.key}/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [hex(n), false] })).json.result;
    const [a, b, unshared] = gateways;
    const block = await read(a, 18);
    expect(block.number).to.equal(hex(18));
    const asked = mirror.paths.length;
    expect(await read(b, 18)).to.deep.equal(block);
    expect(mirror.paths.length).to.equal(asked);
    // The metric reads the relay last built for the network: b's, whose only final answer came from Redis.
    const metric = await registry.getSingleMetricAsString('gateway_relay_shared_cache_requests_total');
    expect(metric).to.match(/result="hit",network="hedera-testnet"} 1\b|network="hedera-testnet",result="hit"} 1\b/);
    expect(await read(unshared, 18)).to.deep.equal(block);
    expect(mirror.paths.length, 'the gateway not sharing asked the mirror node').to.be.above(asked);
  });
});
