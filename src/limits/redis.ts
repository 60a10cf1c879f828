import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import { monthOf, msUntilNextMonth } from './calendar.js';
import { fromGcra, quotaRefusal } from './decision.js';
import { burstMs, intervalMs, outcomeAt } from './gcra.js';
import { limiterBackendErrors, limiterDegraded } from './metrics.js';
import { lruOf } from '../lru.js';
import { Membership } from './membership.js';
import type { MemoryLimiter } from './memory.js';
import { ScriptBatch } from './scriptBatch.js';
import type { LimitDecision, Limiter, UsageStore, UsageTags, WriteBudget } from './types.js';
import type { UsageRecorder } from './usageRecorder.js';

/**
 * One decision, atomically: the monthly quota (when keys[2] is given) and then the GCRA budget of keys[1].
 * argv: now (ms), emission interval (ms), cost, burst (ms), monthly quota, carried TAT (ms, 0 for none), and 1 to
 * force the charge (it was admitted already: count it whatever the budget says) or 0 to decide it. `now` is the
 * calling instance's clock (so tests can inject one); instances need synchronised clocks, and a skew of d ms moves a
 * key's budget by d ms' worth. The carried TAT is what an instance that decided locally while Redis was unreachable
 * knows of the key: the stored TAT is raised to it, so that a Redis that lost the key (restarted empty) does not hand
 * it a fresh budget. Returns {status, ahead, left}: status 1 admitted, 0 refused by rate, 2 refused by quota, -1 quota
 * count missing (seed it); ahead is how far the TAT lies ahead of now, in microseconds (Redis truncates numbers to
 * integers); left is what remains of the monthly quota.
 */
const CHARGE_FN = `function(keys, argv)
  local now = tonumber(argv[1])
  local interval = tonumber(argv[2])
  local cost = tonumber(argv[3])
  local burst = tonumber(argv[4])
  local force = argv[7] == '1'
  local left = 0
  if keys[2] then
    local used = redis.call('GET', keys[2])
    if not used then return {-1, 0, 0} end
    left = tonumber(argv[5]) - tonumber(used)
    if cost > left and not force then return {2, 0, left} end
  end
  local stored = tonumber(redis.call('GET', keys[1]) or '0')
  local tat = math.max(stored, math.min(tonumber(argv[6]), now + burst), now)
  local nxt = tat + cost * interval
  if nxt - now > burst + 0.000001 and not force then
    if tat > stored and tat > now then redis.call('SET', keys[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1) end
    return {0, math.floor((tat - now) * 1000), left}
  end
  redis.call('SET', keys[1], string.format('%.3f', nxt), 'PX', math.ceil(nxt - now) + 1)
  if keys[2] then
    redis.call('INCRBY', keys[2], cost)
    left = left - cost
  end
  return {1, math.floor((nxt - now) * 1000), left}
end`;

/** KEYS[1]: the month count. ARGV[1]: how much to add. -1 when the count is missing (seed it first). */
const COUNT_LUA = `
if not redis.call('GET', KEYS[1]) then return -1 end
return redis.call('INCRBY', KEYS[1], ARGV[1])
`;

/** A quota count outlives its month by a day, for stragglers; one seeded while the store is down lives this long. */
const QUOTA_GRACE_S = 86_400;
const PROVISIONAL_SEED_S = 5;
const RECONNECT_MS = 100;

type ChargeReply = [status: number, aheadMicros: number, quotaLeft: number];

/**
 * What this instance knows of a key's shared budget: the TAT and the quota left as Redis last answered them, and what
 * it has admitted since without an answer yet.
 */
interface KeyView {
  tat: number;
  at: number;
  quotaLeft: number;
  pending: number;
  /** Of the pending, what is not on its way to Redis yet: it goes as one charge with the next batch. */
  unsent: number;
}

/** Requests of one key admitted before Redis answered, from `now` on, and where their charge goes. */
interface AdmittedAhead {
  keyId: string;
  month: string;
  quotaKey: string;
  rateKey: string;
  now: number;
  interval: number;
  burst: number;
  quota: number;
}

/** A view older than this is not trusted to admit ahead of Redis. */
const FRESH_MS = 100;

interface CountCommands {
  gwCount(quotaKey: string, count: number): Promise<number>;
}

export interface RedisLimiterOptions {
  url: string;
  usage: UsageStore;
  recorder: UsageRecorder;
  now: () => number;
  /** Answers while Redis is unreachable (fail-open), with this instance's share of each budget; absent means fail-closed with 503. */
  fallback?: MemoryLimiter;
  logger?: Logger;
}

/**
 * Budgets shared by every instance on one Redis. Every admission is counted in Redis, and the decisions and counts of
 * concurrent requests share one round trip and one script run (ScriptBatch). A request waits for Redis only when its
 * key is near a limit: while the key's last answer is fresh and leaves room for far more than this instance has
 * admitted since, the request is admitted at once and its charge is forced through the next batch (see affords). So a
 * busy key far from its limits costs no round trip per request, a key at its limit is decided exactly in Redis, and
 * since every admission advances the shared TAT, an admission ahead of Redis is paid back by the refusals after it:
 * over any stretch the key gets its rate and one burst, and the quota is never exceeded. Keys use a hash tag per API key id, so a Redis Cluster keeps one key's state on one
 * shard. Usage is also recorded locally and flushed to the store as this instance's deltas; the Redis count is seeded
 * from the store when missing (Redis restarted empty).
 *
 * While Redis is unreachable and failing open, the local limiter admits this instance's share of each key's budget
 * (the rate over the instances alive at the last heartbeat), starting from the key's shared state as last seen here.
 * When Redis returns, the key's next charge carries the local state back into it.
 */
export class RedisLimiter implements Limiter {
  readonly backend = 'redis' as const;
  private down = false;
  private readonly seeding = new Map<string, Promise<void>>();
  private readonly charges: ScriptBatch<ChargeReply>;
  private readonly membership: Membership;
  /** Per rate key; its TAT is also where the local share starts when Redis becomes unreachable. */
  private readonly views = lruOf<string, KeyView>(100_000);
  /**
   * Rate keys the local limiter decided while Redis was unreachable, not yet carried back into Redis, with how far
   * (ms) this instance's local TAT was set back from the shared one (see startLocally).
   */
  private readonly decidedLocally = new Map<string, number>();

  private constructor(
    private readonly opts: RedisLimiterOptions,
    private readonly client: Redis & CountCommands,
  ) {
    this.charges = new ScriptBatch<ChargeReply>(client, 'charge', CHARGE_FN);
    this.membership = new Membership(client, opts.now);
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
      // Reconnect attempts stay frequent: until an instance is back on Redis its local share and the others' shared
      // decisions add up to more than the budget.
      retryStrategy: () => RECONNECT_MS,
    }) as Redis & CountCommands;
    const limiter = new RedisLimiter(opts, client);
    await new Promise<void>((resolve) => {
      client.once('ready', resolve);
      client.once('error', () => resolve());
    });
    await limiter.membership.start();
    return limiter;
  }

  async charge(key: VerifiedKey, cost: number, tags?: UsageTags): Promise<LimitDecision> {
    const now = this.opts.now();
    const month = monthOf(now);
    const limit = key.plan.requestsPerSecond;
    const interval = intervalMs(limit);
    const rateKey = `gw:{${key.id}}:r`;
    const quotaKey = `gw:{${key.id}}:q:${month}`;
    const burst = burstMs(interval);
    const carried = this.carried(rateKey, key.id);
    const view = this.views.get(rateKey);
    if (view && !carried && this.affords(view, now, cost, interval, burst)) {
      view.pending += cost;
      if (view.unsent === 0) void this.settle({ keyId: key.id, month, quotaKey, rateKey, now, interval, burst, quota: key.plan.monthlyQuota }, view);
      view.unsent += cost;
      this.opts.recorder.admitted(key.id, now, cost, tags);
      return fromGcra(outcomeAt(true, Math.max(0, view.tat - now) + view.pending * interval, interval, cost), limit, 'rate');
    }
    const run = () => this.charges.call([rateKey, quotaKey], [now, interval, cost, burst, key.plan.monthlyQuota, carried, 0]);
    let reply: ChargeReply;
    try {
      reply = await run();
      if (reply[0] === -1) {
        await this.seed(key.id, month, quotaKey, now);
        reply = await run();
      }
    } catch (err) {
      return this.failed(err, (share) => {
        this.startLocally(rateKey, key.id, interval);
        return this.opts.fallback!.charge(shareOf(key, share), cost, tags);
      });
    }
    this.markUp();
    this.decidedLocally.delete(rateKey);
    this.see(rateKey, now, reply);
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
      reply = await this.charges.call([`gw:{${key.id}}:w:${budget.scope}`], [this.opts.now(), interval, 1, burstMs(interval), 0, 0, 0]);
    } catch (err) {
      return this.failed(err, (share) => this.opts.fallback!.chargeWrite(key, { ...budget, perSecond: rate * share }));
    }
    this.markUp();
    return fromGcra(outcomeAt(reply[0] === 1, reply[1] / 1_000, interval, 1), rate, 'writes');
  }

  /**
   * A key's first local decision of an outage starts from its shared TAT as last seen, less this instance's place
   * among the instances in emission intervals: each instance then admits its share at its own moments, which together
   * space out as the shared budget would, instead of all at once.
   */
  private startLocally(rateKey: string, keyId: string, interval: number): void {
    if (this.decidedLocally.has(rateKey)) return;
    const setBack = this.membership.rank * interval;
    this.decidedLocally.set(rateKey, setBack);
    const view = this.views.get(rateKey);
    if (view) this.opts.fallback!.adoptTat(keyId, view.tat + view.pending * interval - setBack);
  }

  /**
   * Whether a request may be admitted before Redis answers: Redis is up, the key's last answer is fresh, and what this
   * instance has admitted since (with this one) is at most half its share of the room left in the burst and in the
   * quota. Every instance holds to the same, so together they never admit more ahead of Redis than half the room the
   * answers showed.
   */
  private affords(view: KeyView, now: number, cost: number, interval: number, burst: number): boolean {
    if (this.down || now - view.at > FRESH_MS) return false;
    const room = Math.min((burst - Math.max(0, view.tat - now)) / interval, view.quotaLeft);
    return (view.pending + cost) * 2 * this.membership.alive <= room;
  }

  /**
   * Forces the charge of the requests admitted ahead of Redis into it: all those of the key that accrue until the next
   * batch goes out, as one charge.
   */
  private async settle(admitted: AdmittedAhead, view: KeyView): Promise<void> {
    const { keyId, month, quotaKey, rateKey, now, interval, burst, quota } = admitted;
    let cost = 0;
    const forced = () => [now, interval, cost, burst, quota, 0, 1];
    try {
      let reply = await this.charges.call([rateKey, quotaKey], () => {
        cost = view.unsent;
        view.unsent = 0;
        return forced();
      });
      if (reply[0] === -1) {
        await this.seed(keyId, month, quotaKey, now);
        reply = await this.charges.call([rateKey, quotaKey], forced());
      }
      view.pending -= cost;
      this.see(rateKey, now, reply);
    } catch (err) {
      // Redis became unreachable with this charge on the wire: the view keeps it, for the local limiter to start from.
      view.pending -= cost;
      view.tat = Math.max(view.tat, now) + cost * interval;
      limiterBackendErrors.inc({ backend: 'redis' });
      this.markDown(err);
    }
  }

  private see(rateKey: string, now: number, reply: ChargeReply): void {
    let view = this.views.get(rateKey);
    if (!view) {
      view = { tat: 0, at: 0, quotaLeft: 0, pending: 0, unsent: 0 };
      this.views.set(rateKey, view);
    }
    if (now < view.at) return;
    view.tat = now + reply[1] / 1_000;
    view.at = now;
    view.quotaLeft = reply[2];
  }

  /**
   * What this instance carries back into Redis from its local decisions of the key (0 for nothing): its local TAT
   * with the set-back undone, which estimates the shared TAT the instances' shares add up to. Redis keeps the largest
   * estimate any instance carries.
   */
  private carried(rateKey: string, keyId: string): number {
    const setBack = this.decidedLocally.get(rateKey);
    if (setBack === undefined) return 0;
    const tat = this.opts.fallback?.tatOf(keyId);
    return tat === undefined ? 0 : tat + setBack;
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
    await this.membership.stop();
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

  /** `fallback` decides locally with this instance's share of the budget (a fraction). */
  private async failed(err: unknown, fallback: (share: number) => Promise<LimitDecision>): Promise<LimitDecision> {
    limiterBackendErrors.inc({ backend: 'redis' });
    this.markDown(err);
    if (!this.opts.fallback) throw new GatewayError('LIMITER_UNAVAILABLE', undefined, undefined, { 'retry-after': '1' });
    return fallback(1 / this.membership.alive);
  }

  /** Logged once per outage, not once per request. */
  private markDown(err: unknown): void {
    if (this.down) return;
    this.down = true;
    limiterDegraded.set({ backend: 'redis' }, 1);
    const policy = this.opts.fallback ? `fail-open: a local limiter admits this instance's share (1/${this.membership.alive}) of each budget` : 'fail-closed: requests get 503';
    this.opts.logger?.error({ err: { message: (err as Error)?.message } }, `Redis limiter unreachable; ${policy}`);
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    limiterDegraded.set({ backend: 'redis' }, 0);
    this.opts.logger?.info('Redis limiter reachable again; shared budgets restored');
  }
}

/** The key with its plan's rate scaled to `share` of it (the RateLimit headers then show the share). */
function shareOf(key: VerifiedKey, share: number): VerifiedKey {
  return share === 1 ? key : { ...key, plan: { ...key.plan, requestsPerSecond: key.plan.requestsPerSecond * share } };
}
