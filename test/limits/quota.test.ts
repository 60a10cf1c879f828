import { expect } from 'chai';
import { refusalError } from '../../src/limits/headers.js';
import { createLimiter } from '../../src/limits/index.js';
import { postgresStoreForSuite } from '../support/keyStores.js';
import { eventually, limitsConfig, ManualClock, MapUsageStore, testKey } from './support.js';

const NOV_30_LATE = Date.UTC(2026, 10, 30, 23, 59, 50);
const DEC_1 = Date.UTC(2026, 11, 1, 0, 0, 0);

describe('limits: the monthly quota (injected clock)', () => {
  it('refuses once the month is used up, with Retry-After until the month rolls over', async () => {
    const clock = new ManualClock(NOV_30_LATE);
    const limiter = await createLimiter({ limits: limitsConfig(), usage: new MapUsageStore(), now: clock.now });
    try {
      const key = testKey('free', { quota: 5 });
      expect((await limiter.charge(key, 5)).allowed).to.equal(true);
      clock.advance(1_000); // the rate budget has refilled; only the quota is in the way
      const refused = await limiter.charge(key, 1);
      expect(refused).to.include({ allowed: false, reason: 'quota', remaining: 0, retryAfterSeconds: 9 });
      const err = refusalError(refused);
      expect(err.errorName).to.equal('QUOTA_EXHAUSTED');
      expect(err.message).to.include('monthly quota');
      expect(err.headers).to.include({ 'retry-after': '9' });
    } finally {
      await limiter.close();
    }
  });

  it('starts a fresh count when the UTC month rolls over, and keeps each month apart in the store', async () => {
    const clock = new ManualClock(NOV_30_LATE);
    const usage = new MapUsageStore();
    const limiter = await createLimiter({ limits: limitsConfig(), usage, now: clock.now });
    const key = testKey('free', { quota: 5 });
    expect((await limiter.charge(key, 5)).allowed).to.equal(true);
    clock.ms = DEC_1 - 1;
    expect((await limiter.charge(key, 1)).reason).to.equal('quota');
    clock.ms = DEC_1;
    expect((await limiter.charge(key, 2)).allowed).to.equal(true);
    await limiter.close();
    expect(await usage.usage(key.id, '2026-11')).to.equal(5);
    expect(await usage.usage(key.id, '2026-12')).to.equal(2);
  });

  it('never charges the quota for refused requests', async () => {
    const clock = new ManualClock(NOV_30_LATE);
    const usage = new MapUsageStore();
    const limiter = await createLimiter({ limits: limitsConfig(), usage, now: clock.now });
    const key = testKey('free', { rps: 2 });
    for (let i = 0; i < 10; i++) await limiter.charge(key, 1);
    await limiter.close();
    expect(await usage.usage(key.id, '2026-11')).to.equal(2);
  });
});

describe('limits: usage survives restarts (real key store on Postgres)', () => {
  const store = postgresStoreForSuite();

  it('a graceful restart loses no count: the next instance continues the month', async () => {
    const clock = new ManualClock(NOV_30_LATE);
    // A flush interval far beyond the test: only close() can have written the counts.
    const limits = limitsConfig({ quotaFlushMs: 3_600_000 });
    const key = testKey('free', { quota: 10 });
    const first = await createLimiter({ limits, usage: store(), now: clock.now });
    expect((await first.charge(key, 7)).allowed).to.equal(true);
    await first.close();
    expect(await store().usage(key.id, '2026-11')).to.equal(7);

    const second = await createLimiter({ limits, usage: store(), now: clock.now });
    clock.advance(1_000);
    expect((await second.charge(key, 3)).allowed).to.equal(true);
    clock.advance(1_000);
    expect(await second.charge(key, 1)).to.include({ allowed: false, reason: 'quota' });
    await second.close();
    expect(await store().usage(key.id, '2026-11')).to.equal(10);
  });

  it('a crash loses at most one flush interval: counts reach the store without a shutdown', async () => {
    const clock = new ManualClock(NOV_30_LATE);
    const limiter = await createLimiter({ limits: limitsConfig({ quotaFlushMs: 50 }), usage: store(), now: clock.now });
    try {
      const key = testKey('free');
      for (let i = 0; i < 4; i++) await limiter.charge(key, 1);
      await eventually(async () => (await store().usage(key.id, '2026-11')) === 4, 'the periodic flush');
    } finally {
      await limiter.close();
    }
  });
});
