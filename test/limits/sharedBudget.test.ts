import { expect } from 'chai';
import { Redis } from 'ioredis';
import { isGatewayError } from '../../src/errors.js';
import { createLimiter } from '../../src/limits/index.js';
import type { Limiter } from '../../src/limits/types.js';
import { needTool, TOOLS } from '../support/services.js';
import { eventually, limitsConfig, ManualClock, MapUsageStore, RedisChild, testKey } from './support.js';

const INSTANCES = 8;
const RATE = 50;
const OVERLOAD = 6;
const PHASE_MS = 10_000;

/** Eight instances' limiters, each with its own Redis connection, on one usage store. */
async function instances(redisUrl: string, redisFailure: 'fail-open' | 'fail-closed'): Promise<Limiter[]> {
  const usage = new MapUsageStore();
  const limiters = await Promise.all(Array.from({ length: INSTANCES }, () => createLimiter({ limits: limitsConfig({ redisUrl, redisFailure }), usage })));
  // Every instance has seen all eight beat (they beat once a second).
  await new Promise((r) => setTimeout(r, 1_500));
  return limiters;
}

/**
 * Offers the key OVERLOAD times its rate for `ms`, spread evenly over the instances, and counts what they admit.
 * `during` runs alongside (the Redis restart).
 */
async function offer(limiters: Limiter[], key: ReturnType<typeof testKey>, ms: number, during: () => Promise<void> = async () => {}) {
  const started = Date.now();
  let offered = 0;
  let admitted = 0;
  const refusals: unknown[] = [];
  const decisions: Array<Promise<void>> = [];
  const disturbed = during();
  while (Date.now() - started < ms) {
    const due = Math.floor(((Date.now() - started) / 1_000) * RATE * OVERLOAD);
    for (; offered < due; offered++) {
      decisions.push(
        limiters[offered % limiters.length].charge(key, 1).then(
          (d) => void (d.allowed && admitted++),
          (err: unknown) => void refusals.push(err),
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(decisions);
  await disturbed;
  return { offered, admitted, refusals };
}

describe('limits: one shared budget on 8 instances across a Redis restart (a private redis-server)', function () {
  let redis: RedisChild;
  let limiters: Limiter[] = [];
  before(async function () {
    needTool(this, TOOLS.redisServer);
    redis = await RedisChild.start();
  });
  afterEach(async () => {
    await Promise.all(limiters.map((l) => l.close()));
    limiters = [];
  });
  after(() => redis?.down());

  /** Stops Redis `afterMs` into the phase and starts it again, empty, about a second later. */
  const restart = (afterMs: number) => async () => {
    await new Promise((r) => setTimeout(r, afterMs));
    await redis.down();
    await new Promise((r) => setTimeout(r, 1_000));
    await redis.up();
  };

  it('fail-open: admits the configured rate within 2% over 10 s of 6x overload that includes a restart of Redis, empty', async () => {
    limiters = await instances(redis.url, 'fail-open');
    const key = testKey('free', { rps: RATE, quota: 10_000_000 });
    // Spend the key's burst first: the phase then measures the rate alone.
    await offer(limiters, key, 2_000);
    const phase = await offer(limiters, key, PHASE_MS, restart(4_000));
    expect(phase.refusals).to.deep.equal([]);
    expect(phase.offered).to.be.at.least(RATE * OVERLOAD * 9);
    const expected = (RATE * PHASE_MS) / 1_000;
    expect(phase.admitted).to.be.within(expected * 0.98, expected * 1.02);
  });

  it('a busy instance that stops returns what it was leased, so another instance gets the whole budget left', async () => {
    // One clock for both, stopped: each decision is exact, not a race with time.
    const started = Date.UTC(2026, 10, 15, 12, 0, 0);
    const clock = new ManualClock(started);
    const usage = new MapUsageStore();
    limiters = await Promise.all([0, 1].map(() => createLimiter({ limits: limitsConfig({ redisUrl: redis.url }), usage, now: clock.now })));
    const [a, b] = limiters;
    const key = testKey('free', { rps: 100, quota: 10_000_000 });
    const rush = async (limiter: Limiter, n: number) => (await Promise.all(Array.from({ length: n }, () => limiter.charge(key, 1)))).filter((d) => d.allowed).length;
    // Concurrent requests of one key get leases: A holds some beyond the 40 it admitted.
    expect(await rush(a, 40)).to.equal(40);
    clock.advance(200);
    // A goes quiet; its idle lease goes back (the key's TAT falls to the 40 admitted) while 200 ms refill 20.
    const probe = new Redis(redis.url);
    try {
      await eventually(async () => Number(await probe.get(`gw:{${key.id}}:r`)) === started + 40 * 10, 'the idle lease to be returned');
    } finally {
      probe.disconnect();
    }
    expect(await rush(b, 100)).to.equal(100 - 40 + 20);
  });

  it('fail-closed: 503 with Retry-After and nothing admitted while Redis is down, then admitted again', async () => {
    limiters = await instances(redis.url, 'fail-closed');
    const key = testKey('free', { rps: RATE, quota: 10_000_000 });
    await redis.down();
    const outcomes = await offer(limiters, key, 500);
    expect(outcomes.admitted).to.equal(0);
    expect(outcomes.refusals).to.have.length(outcomes.offered);
    for (const err of outcomes.refusals) {
      expect(isGatewayError(err) && err.http).to.equal(503);
      expect(isGatewayError(err) && err.headers?.['retry-after']).to.equal('1');
    }
    await redis.up();
    await eventually(async () => (await limiters[0].charge(key, 1).catch(() => undefined))?.allowed === true, 'Redis to admit again');
  });
});
