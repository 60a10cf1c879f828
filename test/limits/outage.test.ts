import { expect } from 'chai';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { isGatewayError } from '../../src/errors.js';
import { createLimiter } from '../../src/limits/index.js';
import { limiterBackendErrors } from '../../src/limits/metrics.js';
import type { Limiter } from '../../src/limits/types.js';
import { createLogger } from '../../src/log.js';
import { needTool, TOOLS } from '../support/services.js';
import { eventually, LEDGER_WRITES, limitsConfig, ManualClock, MapUsageStore, RedisChild, testKey } from './support.js';

/** A logger whose lines the test can read. */
function capturedLogger() {
  const lines: Array<{ level: string; msg: string }> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger('info', sink) };
}

async function backendErrors(): Promise<number> {
  return (await limiterBackendErrors.get()).values.find((v) => v.labels.backend === 'redis')?.value ?? 0;
}

/** Charges until the decision was made in Redis: the key's budget state appears there. */
async function servedByRedis(limiter: Limiter, redisUrl: string): Promise<void> {
  const probe = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
  try {
    await probe.connect();
    const key = testKey('developer');
    await eventually(async () => {
      await limiter.charge(key, 1).catch(() => undefined);
      return (await probe.exists(`gw:{${key.id}}:r`)) === 1;
    }, 'the limiter to use Redis again');
  } finally {
    probe.disconnect();
  }
}

describe('limits: Redis stopped mid-test (a private redis-server)', function () {
  let redis: RedisChild;
  before(async function () {
    needTool(this, TOOLS.redisServer);
    redis = await RedisChild.start();
  });
  after(() => redis?.down());

  it('fail-open: a local per-instance limiter answers, the outage is logged once and counted, and Redis is used again when it returns', async () => {
    const { lines, logger } = capturedLogger();
    // A stopped clock: the local limiter's budget must not refill while the fifteen charges run on a busy machine.
    const clock = new ManualClock(Date.UTC(2026, 10, 15, 12, 0, 0));
    const limiter = await createLimiter({ limits: limitsConfig({ redisUrl: redis.url, redisFailure: 'fail-open' }), usage: new MapUsageStore(), logger, now: clock.now });
    try {
      await servedByRedis(limiter, redis.url);
      await redis.down();
      const errorsBefore = await backendErrors();
      const key = testKey('free', { rps: 10 });
      const decisions = [];
      for (let i = 0; i < 15; i++) decisions.push(await limiter.charge(key, 1));
      // The local limiter still enforces the plan's budget.
      expect(decisions.filter((d) => d.allowed)).to.have.length(10);
      expect(decisions[14]).to.include({ allowed: false, reason: 'rate' });
      expect(await backendErrors()).to.equal(errorsBefore + 15);
      expect(lines.filter((l) => /Redis limiter unreachable; fail-open/.test(l.msg))).to.have.length(1);
      // Still ready: this instance keeps deciding.
      expect(await limiter.ping()).to.equal(true);

      await redis.up();
      await servedByRedis(limiter, redis.url);
      expect(lines.filter((l) => /reachable again/.test(l.msg))).to.have.length(1);
    } finally {
      await limiter.close();
    }
  });

  it('fail-closed: 503 while Redis is down, and admitted again when it returns', async () => {
    const limiter = await createLimiter({ limits: limitsConfig({ redisUrl: redis.url, redisFailure: 'fail-closed' }), usage: new MapUsageStore() });
    try {
      await servedByRedis(limiter, redis.url);
      await redis.down();
      const key = testKey('free');
      const err = await limiter.charge(key, 1).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isGatewayError(err) && err.errorName).to.equal('LIMITER_UNAVAILABLE');
      expect(isGatewayError(err) && err.http).to.equal(503);
      const writeErr = await limiter.chargeWrite(key, LEDGER_WRITES).catch((e: unknown) => e);
      expect(isGatewayError(writeErr) && writeErr.errorName).to.equal('LIMITER_UNAVAILABLE');
      expect(await limiter.ping()).to.equal(false);

      await redis.up();
      await servedByRedis(limiter, redis.url);
      expect(await limiter.ping()).to.equal(true);
      expect((await limiter.charge(key, 1)).allowed).to.equal(true);
    } finally {
      await limiter.close();
    }
  });

  it('starts while Redis is down and follows the policy until it comes up', async () => {
    await redis.down();
    const limiter = await createLimiter({ limits: limitsConfig({ redisUrl: redis.url }), usage: new MapUsageStore() });
    try {
      expect((await limiter.charge(testKey('free'), 1)).allowed).to.equal(true);
      await redis.up();
      await servedByRedis(limiter, redis.url);
    } finally {
      await limiter.close();
    }
  });
});
