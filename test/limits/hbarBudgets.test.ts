/**
 * The hbar budgets of several instances on one Redis, at the level of the budgets themselves: reservations held at
 * once through different instances never overrun a budget, settled spend is what the key store keeps, and while Redis
 * is unreachable each instance admits only a bounded number of writes in flight.
 */
import { expect } from 'chai';
import { configSchema } from '../../src/config/schema.js';
import type { KeyStore } from '../../src/keys/store.js';
import { createHbarBudgets, type HbarBudgets } from '../../src/limits/hbarBudgets.js';
import { memoryStore } from '../support/keyStores.js';
import { RedisChild, testKey } from './support.js';

const NETWORK = 'hedera-testnet';

describe('hbar budgets shared through Redis', function () {
  this.timeout(30_000);
  let redis: RedisChild;
  let store: KeyStore;
  let instances: HbarBudgets[];
  const limits = configSchema.parse({ chains: {}, plans: {}, hbarLimits: { outageInFlight: 2 } }).hbarLimits;

  before(async () => {
    redis = await RedisChild.start();
    store = await memoryStore();
    instances = await Promise.all([0, 1].map(() => createHbarBudgets({ limits, plans: {}, store, redisUrl: redis.url })));
  });
  after(async () => {
    for (const i of instances ?? []) await i.close();
    await store?.close();
    await redis?.down();
  });

  it('admits, across instances and at once, only the writes whose largest fees fit the key\'s budget together', async () => {
    const key = testKey('free', { hbarLimitTinybar: 1_000 });
    const attempts = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => instances[i % 2].reserve(NETWORK, key, 300)));
    const held = attempts.filter((a) => a.status === 'fulfilled');
    expect(held).to.have.length(3);
    for (const a of attempts) if (a.status === 'rejected') expect(a.reason.errorName).to.equal('HBAR_LIMITED');
    // Settled to what the records charged, the reservations make room again; the store keeps the spend.
    for (const h of held) await (h as PromiseFulfilledResult<Awaited<ReturnType<HbarBudgets['reserve']>>>).value.settle(100);
    expect((await instances[1].keySpend(key, [NETWORK])).spent).to.deep.equal([{ network: NETWORK, tinybar: 300 }]);
    const again = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => instances[i % 2].reserve(NETWORK, key, 300)));
    expect(again.filter((a) => a.status === 'fulfilled')).to.have.length(2);
  });

  it('while Redis is down, judges from the store and holds at most outageInFlight writes per instance', async () => {
    const key = testKey('free', { hbarLimitTinybar: 1_000_000 });
    await store.addHbarSpend([{ scope: `key:${key.id}:${NETWORK}`, window: Math.floor(Date.now() / limits.windowMs) * limits.windowMs, tinybar: 999_500 }]);
    await redis.down();
    try {
      await instances[0].reserve(NETWORK, key, 600).then(
        () => expect.fail('admitted past the persisted spend'),
        (err) => expect(err.errorName).to.equal('HBAR_LIMITED'),
      );
      const roomy = testKey('free', { hbarLimitTinybar: 1_000_000 });
      await instances[0].reserve(NETWORK, roomy, 10);
      await instances[0].reserve(NETWORK, roomy, 10);
      await instances[0].reserve(NETWORK, roomy, 10).then(
        () => expect.fail('a third write in flight during the outage'),
        (err) => expect(err.errorName).to.equal('LIMITER_UNAVAILABLE'),
      );
    } finally {
      await redis.up();
    }
  });
});
