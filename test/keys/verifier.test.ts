import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateKey } from '../../src/keys/format.js';
import type { KeyStore } from '../../src/keys/store.js';
import { createKeyVerifier } from '../../src/keys/verifier.js';
import { keyConfig, sharedMemoryStore } from '../support/keyStores.js';

describe('key verifier', () => {
  let store: KeyStore;
  let queries = 0;
  /** The real store, counting the look-ups that reach it. */
  const counted = { findByHash: (hash: string) => (queries++, store.findByHash(hash)) };
  const verifier = (keys: Parameters<typeof keyConfig>[0] = {}) => {
    const { keys: opts, plans } = keyConfig(keys);
    return createKeyVerifier(counted, opts, plans);
  };
  const newKey = async (spec: { plan?: string; flags?: Array<'relay_beta' | 'heavy_writes'> } = {}) => {
    const account = await store.createAccount({ name: 'Verifier' });
    return store.createKey({ accountId: account.id, name: 'v', network: 'testnet', ...spec });
  };

  before(async () => {
    store = await sharedMemoryStore();
  });
  beforeEach(() => {
    queries = 0;
  });

  it("answers with the key's id, plan and flags, never the key", async () => {
    const { key, record } = await newKey({ plan: 'developer', flags: ['relay_beta'] });
    const verified = await verifier().verify(key);
    expect(verified).to.deep.include({ id: record.id, accountId: record.accountId, planName: 'developer', network: 'testnet', relayBeta: true, heavyWrites: false });
    expect(verified?.plan.requestsPerSecond).to.equal(keyConfig().plans.developer.requestsPerSecond);
    expect(JSON.stringify(verified)).not.to.include(key);
  });

  it('refuses unknown, revoked and oversized keys', async () => {
    const v = verifier();
    const { key, record } = await newKey();
    await store.revoke(record.id);
    expect(await v.verify(generateKey())).to.equal(null);
    expect(await v.verify(key)).to.equal(null);
    expect(await v.verify('x'.repeat(10_000))).to.equal(null);
    expect(await v.verify('')).to.equal(null);
  });

  it('serves a warm key from memory without touching the store', async () => {
    const v = verifier({ cacheTtlMs: 60_000 });
    const { key } = await newKey();
    for (let i = 0; i < 100; i++) expect(await v.verify(key)).not.to.equal(null);
    expect(queries).to.equal(1);
  });

  it('holds at most cacheMax keys: the least recently used one is read from the store again', async () => {
    const v = verifier({ cacheTtlMs: 60_000, cacheMax: 3 });
    const keys = await Promise.all([1, 2, 3, 4].map(() => newKey()));
    for (const { key } of keys.slice(0, 3)) await v.verify(key);
    await v.verify(keys[0].key);
    await v.verify(keys[3].key);
    queries = 0;
    for (const { key } of [keys[0], keys[2], keys[3]]) await v.verify(key);
    expect(queries, 'the three kept').to.equal(0);
    await v.verify(keys[1].key);
    expect(queries, 'the one evicted').to.equal(1);
  });

  it('shares one store query among concurrent look-ups of one key', async () => {
    const v = verifier();
    const { key } = await newKey();
    const results = await Promise.all(Array.from({ length: 25 }, () => v.verify(key)));
    expect(results.every((r) => r !== null)).to.equal(true);
    expect(queries).to.equal(1);
  });

  it('stops accepting a revoked key once the cache TTL has passed', async () => {
    const ttl = 200;
    const v = verifier({ cacheTtlMs: ttl });
    const { key, record } = await newKey();
    expect(await v.verify(key)).not.to.equal(null);
    await store.revoke(record.id);
    await sleep(ttl + 20);
    expect(await v.verify(key)).to.equal(null);
  });

  it('remembers unknown keys briefly, so a flood of one bad key reaches the store once', async () => {
    const v = verifier({ negativeTtlMs: 60_000 });
    const bad = generateKey();
    await Promise.all(Array.from({ length: 20 }, () => v.verify(bad)));
    for (let i = 0; i < 20; i++) await v.verify(bad);
    expect(queries).to.equal(1);
  });

  it('forgets an unknown key after the negative TTL', async () => {
    const v = verifier({ negativeTtlMs: 50 });
    const bad = generateKey();
    await v.verify(bad);
    await sleep(70);
    await v.verify(bad);
    expect(queries).to.equal(2);
  });
});
