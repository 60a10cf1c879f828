import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createLimiter } from '../../src/limits/index.js';
import type { Limiter } from '../../src/limits/types.js';
import { needService, REDIS_URL } from '../support/services.js';
import { monthDelta } from '../support/keyStores.js';
import { LEDGER_WRITES, limitsConfig, ManualClock, MapUsageStore, RUN_REDIS_KEYS, testKey } from './support.js';

const START = Date.UTC(2026, 10, 15, 12, 0, 0);

describe('limits: the Redis backend (real Redis)', () => {
  const opened: Limiter[] = [];
  let redis: Redis;
  const open = async (clock: ManualClock, usage = new MapUsageStore(), extra = {}) => {
    const limiter = await createLimiter({ limits: limitsConfig({ redisUrl: REDIS_URL, ...extra }), usage, now: clock.now });
    opened.push(limiter);
    return limiter;
  };
  before(async function () {
    await needService(this, 'Redis', 6379);
    redis = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((l) => l.close()));
  });
  after(async () => {
    if (!redis) return;
    // Month counts would otherwise linger until the month ends; another run's keys on this Redis are left alone.
    const left = await redis.keys(RUN_REDIS_KEYS);
    if (left.length > 0) await redis.del(...left);
    redis.disconnect();
  });

  it('two instances share one key budget: admitted across both is the budget, under sustained overload', async () => {
    const clock = new ManualClock(START);
    const [a, b] = [await open(clock), await open(clock)];
    expect(a.backend).to.equal('redis');
    const key = testKey('developer', { rps: 50 });
    let admitted = 0;
    // Three seconds in 10 ms steps; each step both instances take four requests (eight times the plan's rate).
    for (let step = 0; step < 300; step++) {
      const decisions = await Promise.all([a, b, a, b].map((l) => l.charge(key, 1)));
      admitted += decisions.filter((d) => d.allowed).length;
      clock.advance(10);
    }
    // One second's burst (50) and then 50 per second for the remaining 2.99 s.
    const budget = 50 + 50 * 2.99;
    expect(admitted).to.be.within(budget * 0.9, budget * 1.1);
  });

  it('decides atomically: a simultaneous rush from two instances admits exactly the burst', async () => {
    const clock = new ManualClock(START);
    const [a, b] = [await open(clock), await open(clock)];
    const key = testKey('developer', { rps: 50 });
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).charge(key, 1)));
    expect(decisions.filter((d) => d.allowed)).to.have.length(50);
  });

  it('keeps the month count in Redis, seeded once from the usage store', async () => {
    const clock = new ManualClock(START);
    const usage = new MapUsageStore();
    const key = testKey('free', { quota: 100 });
    await usage.addUsage([monthDelta(key.id, '2026-11', 96)]);
    const [a, b] = [await open(clock, usage), await open(clock, usage)];
    expect((await a.charge(key, 3)).allowed).to.equal(true);
    expect((await b.charge(key, 1)).allowed).to.equal(true);
    expect(await a.charge(key, 1)).to.include({ allowed: false, reason: 'quota' });
    expect(Number(await redis.get(`gw:{${key.id}}:q:2026-11`))).to.equal(100);
    // Each instance flushes what it admitted: the store ends with the true total.
    await Promise.all(opened.splice(0).map((l) => l.close()));
    expect(await usage.usage(key.id, '2026-11')).to.equal(100);
  });

  it('re-seeds a month count that Redis lost from the store plus this instance unflushed counts', async () => {
    const clock = new ManualClock(START);
    const usage = new MapUsageStore();
    const key = testKey('free', { quota: 10 });
    const limiter = await open(clock, usage, { quotaFlushMs: 3_600_000 });
    expect((await limiter.charge(key, 6)).allowed).to.equal(true);
    await redis.del(`gw:{${key.id}}:q:2026-11`); // Redis restarted empty
    clock.advance(1_000);
    expect((await limiter.charge(key, 4)).allowed).to.equal(true);
    clock.advance(1_000);
    expect((await limiter.charge(key, 1)).reason).to.equal('quota');
  });

  it('a lease granted under one plan is not drawn on once the key is on another: a downgrade holds from its next request', async () => {
    const clock = new ManualClock(START);
    const limiter = await open(clock);
    const key = testKey('enterprise', { rps: 1_000 });
    // Busy enough to be leased requests ahead: rounds of overlapping requests.
    for (let round = 0; round < 6; round++) await Promise.all(Array.from({ length: 64 }, () => limiter.charge(key, 1)));
    const downgraded = { ...key, planName: 'free', plan: { ...key.plan, requestsPerSecond: 2 } };
    let admitted = 0;
    for (let i = 0; i < 20; i++) if ((await limiter.charge(downgraded, 1)).allowed) admitted++;
    // The free plan's burst at most (two at 2/s), not what was leased at 1,000/s.
    expect(admitted).to.be.at.most(2);
  });

  it('enforces the write budget across instances', async () => {
    const clock = new ManualClock(START);
    const [a, b] = [await open(clock), await open(clock)];
    const key = testKey('developer');
    const decisions = [await a.chargeWrite(key, LEDGER_WRITES), await b.chargeWrite(key, LEDGER_WRITES), await a.chargeWrite(key, LEDGER_WRITES)];
    expect(decisions.map((d) => d.allowed)).to.deep.equal([true, true, false]);
    expect(decisions[2]).to.include({ reason: 'writes' });
    expect(await a.ping()).to.equal(true);
  });
});
