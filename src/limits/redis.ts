import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import { monthOf, msUntilNextMonth } from './calendar.js';
import { fromGcra, quotaRefusal } from './decision.js';
import { burstMs, intervalMs, outcomeAt } from './gcra.js';
import { limiterBackendErrors, limiterDegraded } from './metrics.js';
import type { LimitDecision, Limiter, UsageStore, UsageTags, WriteBudget } from './types.js';
import type { UsageRecorder } from './usageRecorder.js';

/**
 * One decision, atomically: the monthly quota (when KEYS[2] is given) and then the GCRA budget of KEYS[1].
 * ARGV: now (ms), emission interval (ms), cost, burst (ms), monthly quota. `now` is the calling instance's clock (so
 * tests can inject one); instances need synchronised clocks, and a skew of d ms moves a key's budget by d ms' worth.
 * Returns {status, ahead}: status 1 admitted, 0 refused by rate, 2 refused by quota, -1 quota count missing (seed it);
 * ahead is how far the stored TAT lies ahead of now, in microseconds (Redis truncates numbers to integers).
 */
const CHARGE_LUA = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
if KEYS[2] then
  local used = redis.call('GET', KEYS[2])
  if not used then return {-1, 0} end
  if tonumber(used) + cost > tonumber(ARGV[5]) then return {2, 0} end
end
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local nxt = tat + cost * interval
if nxt - now > burst + 0.000001 then return {0, math.floor((tat - now) * 1000)} end
redis.call('SET', KEYS[1], string.format('%.3f', nxt), 'PX', math.ceil(nxt - now) + 1)
if KEYS[2] then redis.call('INCRBY', KEYS[2], cost) end
return {1, math.floor((nxt - now) * 1000)}
`;

/** KEYS[1]: the month count. ARGV[1]: how much to add. -1 when the count is missing (seed it first). */
const COUNT_LUA = `
if not redis.call('GET', KEYS[1]) then return -1 end
return redis.call('INCRBY', KEYS[1], ARGV[1])
`;

/** A quota count outlives its month by a day, for stragglers; one seeded while the store is down lives this long. */
const QUOTA_GRACE_S = 86_400;
const PROVISIONAL_SEED_S = 5;

type ChargeReply = [status: number, aheadMicros: number];

interface ChargeCommands {
  gwCharge(rateKey: string, quotaKey: string, ...argv: Array<string | number>): Promise<ChargeReply>;
  gwChargeRate(rateKey: string, ...argv: Array<string | number>): Promise<ChargeReply>;
  gwCount(quotaKey: string, count: number): Promise<number>;
}

export interface RedisLimiterOptions {
  url: string;
  usage: UsageStore;
  recorder: UsageRecorder;
  now: () => number;
  /** Answers while Redis is unreachable (fail-open); absent means fail-closed with 503. */
  fallback?: Limiter;
  logger?: Logger;
}

/**
 * Budgets shared by every instance on one Redis. Each decision is one EVALSHA of CHARGE_LUA. Keys use a hash tag
 * per API key id, so a Redis Cluster keeps one key's state on one shard. Usage is also recorded locally and flushed to
 * the store as this instance's deltas; the Redis count is seeded from the store when missing (Redis restarted empty).
 */
export class RedisLimiter implements Limiter {
  readonly backend = 'redis' as const;
  private down = false;
  private readonly seeding = new Map<string, Promise<void>>();

  private constructor(
    private readonly opts: RedisLimiterOptions,
    private readonly client: Redis & ChargeCommands,
  ) {
    this.client.defineCommand('gwCharge', { lua: CHARGE_LUA, numberOfKeys: 2 });
    this.client.defineCommand('gwChargeRate', { lua: CHARGE_LUA, numberOfKeys: 1 });
    this.client.defineCommand('gwCount', { lua: COUNT_LUA, numberOfKeys: 1 });
    this.client.on('error', (err) => this.markDown(err));
    this.client.on('ready', () => this.markUp());
  }

  /**
   * Connects, but starts even when Redis is down: the failure policy answers until it comes up. The client library
   * loads here, so a gateway without Redis never holds it.
   */
  static async connect(opts: RedisLimiterOptions): Promise<RedisLimiter> {
    const { Redis } = await import('ioredis');
    const client = new Redis(opts.url, {
      // Fail fast during an outage: no queueing while disconnected, short timeouts, reconnect in the background.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1_000,
      commandTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    }) as Redis & ChargeCommands;
    const limiter = new RedisLimiter(opts, client);
    await new Promise<void>((resolve) => {
      client.once('ready', resolve);
      client.once('error', () => resolve());
    });
    return limiter;
  }

  async charge(key: VerifiedKey, cost: number, tags?: UsageTags): Promise<LimitDecision> {
    const now = this.opts.now();
    const month = monthOf(now);
    const limit = key.plan.requestsPerSecond;
    const interval = intervalMs(limit);
    const rateKey = `gw:{${key.id}}:r`;
    const quotaKey = `gw:{${key.id}}:q:${month}`;
    const run = () => this.client.gwCharge(rateKey, quotaKey, now, interval, cost, burstMs(interval), key.plan.monthlyQuota);
    let reply: ChargeReply;
    try {
      reply = await run();
      if (reply[0] === -1) {
        await this.seed(key.id, month, quotaKey, now);
        reply = await run();
      }
    } catch (err) {
      return this.failed(err, () => this.opts.fallback!.charge(key, cost, tags));
    }
    this.markUp();
    if (reply[0] === 2) return quotaRefusal(now, limit);
    if (reply[0] === 1) this.opts.recorder.admitted(key.id, now, cost, tags);
    return fromGcra(outcomeAt(reply[0] === 1, reply[1] / 1_000, interval, cost), limit, 'rate');
  }

  async countUsage(key: VerifiedKey, count: number, tags?: UsageTags): Promise<boolean> {
    const now = this.opts.now();
    const month = monthOf(now);
    const quotaKey = `gw:{${key.id}}:q:${month}`;
    let used: number;
    try {
      used = await this.client.gwCount(quotaKey, count);
      if (used === -1) {
        await this.seed(key.id, month, quotaKey, now);
        used = await this.client.gwCount(quotaKey, count);
      }
    } catch (err) {
      limiterBackendErrors.inc({ backend: 'redis' });
      this.markDown(err);
      if (this.opts.fallback) return this.opts.fallback.countUsage(key, count, tags);
      // Fail-closed refuses new requests; what was already delivered is still persisted to the usage store.
      this.opts.recorder.admitted(key.id, now, count, tags);
      return true;
    }
    this.markUp();
    this.opts.recorder.admitted(key.id, now, count, tags);
    return used < key.plan.monthlyQuota;
  }

  async chargeWrite(key: VerifiedKey, budget: WriteBudget): Promise<LimitDecision> {
    const rate = budget.perSecond;
    const interval = intervalMs(rate);
    let reply: ChargeReply;
    try {
      reply = await this.client.gwChargeRate(`gw:{${key.id}}:w:${budget.scope}`, this.opts.now(), interval, 1, burstMs(interval));
    } catch (err) {
      return this.failed(err, () => this.opts.fallback!.chargeWrite(key, budget));
    }
    this.markUp();
    return fromGcra(outcomeAt(reply[0] === 1, reply[1] / 1_000, interval, 1), rate, 'writes');
  }

  /** Failing open, the gateway still decides (locally), so it stays ready; failing closed, it is ready only with Redis. */
  async ping(): Promise<boolean> {
    if (this.opts.fallback) return true;
    return this.reachable();
  }

  private async reachable(): Promise<boolean> {
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.opts.fallback?.close();
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  /**
   * The month count is missing: Redis restarted empty, or this key's first request this month. The store plus this
   * instance's unflushed counts is the best total known; NX keeps a seed another instance wrote first.
   */
  private seed(keyId: string, month: string, quotaKey: string, now: number): Promise<void> {
    let pending = this.seeding.get(quotaKey);
    if (!pending) {
      pending = this.seedFromStore(keyId, month, quotaKey, now).finally(() => this.seeding.delete(quotaKey));
      this.seeding.set(quotaKey, pending);
    }
    return pending;
  }

  private async seedFromStore(keyId: string, month: string, quotaKey: string, now: number): Promise<void> {
    let stored: number;
    let ttl = Math.ceil(msUntilNextMonth(now) / 1_000) + QUOTA_GRACE_S;
    try {
      stored = await this.opts.usage.usage(keyId, month);
    } catch (err) {
      this.opts.logger?.error({ err }, 'usage store read failed; month count starts from this instance for now');
      stored = 0;
      ttl = PROVISIONAL_SEED_S;
    }
    await this.client.set(quotaKey, stored + this.opts.recorder.unflushed(keyId, month), 'EX', ttl, 'NX');
  }

  private async failed(err: unknown, fallback: () => Promise<LimitDecision>): Promise<LimitDecision> {
    limiterBackendErrors.inc({ backend: 'redis' });
    this.markDown(err);
    if (!this.opts.fallback) throw new GatewayError('LIMITER_UNAVAILABLE', undefined, undefined, { 'retry-after': '1' });
    return fallback();
  }

  /** Logged once per outage, not once per request. */
  private markDown(err: unknown): void {
    if (this.down) return;
    this.down = true;
    limiterDegraded.set({ backend: 'redis' }, 1);
    const policy = this.opts.fallback ? 'fail-open: a local per-instance limiter answers' : 'fail-closed: requests get 503';
    this.opts.logger?.error({ err: { message: (err as Error)?.message } }, `Redis limiter unreachable; ${policy}`);
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    limiterDegraded.set({ backend: 'redis' }, 0);
    this.opts.logger?.info('Redis limiter reachable again; shared budgets restored');
  }
}
