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
import { failFastRedis, firstAttempt } from './failFastRedis.js';

/**
 * One decision, atomically: the monthly quota (when keys[2] is given) and then the GCRA budget of keys[1].
 * argv: now (ms), emission interval (ms), cost, burst (ms), monthly quota, carried TAT (ms, 0 for none), lease wanted,
 * instances alive. `now` is the calling instance's clock (so tests can inject one); instances need synchronised
 * clocks, and a skew of d ms moves a key's budget by d ms' worth. The carried TAT is what an instance that decided
 * locally while Redis was unreachable knows of the key: the stored TAT is raised to it, so that a Redis that lost the
 * key (restarted empty) does not hand it a fresh budget. When admitted, up to `want` more requests are leased to the
 * caller, charged now like admitted ones, but never more than half its share (1 / alive) of the room left in the burst
 * and in the quota; a negative cost returns unused lease. Returns {status, ahead, left, lease}: status 1 admitted, 0
 * refused by rate, 2 refused by quota, -1 quota count missing (seed it); ahead is how far the TAT lies ahead of now,
 * in microseconds (Redis truncates numbers to integers); left is what remains of the monthly quota.
 */
const CHARGE_FN = `function(keys, argv)
  local now = tonumber(argv[1])
  local interval = tonumber(argv[2])
  local cost = tonumber(argv[3])
  local burst = tonumber(argv[4])
  local want = tonumber(argv[7])
  local shares = 2 * tonumber(argv[8])
  local left = 0
  if keys[2] then
    local used = redis.call('GET', keys[2])
    if not used then return {-1, 0, 0, 0} end
    left = tonumber(argv[5]) - tonumber(used)
    if cost > left then return {2, 0, left, 0} end
  end
  local stored = tonumber(redis.call('GET', keys[1]) or '0')
  local tat = math.max(stored, math.min(tonumber(argv[6]), now + burst), now)
  local nxt = tat + cost * interval
  if nxt - now > burst + 0.000001 then
    if tat > stored and tat > now then redis.call('SET', keys[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1) end
    return {0, math.floor((tat - now) * 1000), left, 0}
  end
  local lease = 0
  if want > 0 then
    lease = math.floor((burst - (nxt - now)) / interval / shares + 0.000001)
    if keys[2] then lease = math.min(lease, math.floor((left - cost) / shares)) end
    lease = math.max(0, math.min(want, lease))
    nxt = nxt + lease * interval
  end
  if nxt < now then nxt = now end
  redis.call('SET', keys[1], string.format('%.3f', nxt), 'PX', math.ceil(nxt - now) + 1)
  if keys[2] then
    redis.call('INCRBY', keys[2], cost + lease)
    left = left - cost - lease
  end
  return {1, math.floor((nxt - now) * 1000), left, lease}
end`;

/** KEYS[1]: the month count. ARGV[1]: how much to add. -1 when the count is missing (seed it first). */
const COUNT_LUA = `
if not redis.call('GET', KEYS[1]) then return -1 end
return redis.call('INCRBY', KEYS[1], ARGV[1])
`;

/** A quota count outlives its month by a day, for stragglers; one seeded while the store is down lives this long. */
const QUOTA_GRACE_S = 86_400;
const PROVISIONAL_SEED_S = 5;

type ChargeReply = [status: number, aheadMicros: number, quotaLeft: number, lease: number];

/** What this instance knows of a key's shared budget, and the requests Redis has leased it. */
interface KeyView {
  keyId: string;
  /** The shared TAT (ms) as Redis last answered it, leases included. */
  tat: number;
  /** Requests leased to this instance and not admitted yet: already charged in Redis, so admitted without asking. */
  credit: number;
  /** Admitted from the lease since the last top-up was asked for: how large the next one should be. */
  used: number;
  /** When the lease was last drawn on (ms); one left idle is returned. */
  usedAt: number;
  /** A top-up is on its way. */
  asking: boolean;
  /** Requests of the key waiting for Redis here: more than none means the key is busy enough to lease. */
  waiting: number;
  /** Leases of an earlier connection to Redis are void: a Redis that restarted does not hold them. */
  epoch: number;
  month: string;
  interval: number;
  burst: number;
  quota: number;
}

/** The plan's terms a lease was granted on: a lease is drawn on only while the key's plan and month match them. */
type Terms = Pick<KeyView, 'month' | 'interval' | 'burst' | 'quota'>;

/** A key's rate and month-count names in Redis; the hash tag per key id keeps one key's state on one Cluster shard. */
const rateKeyOf = (keyId: string) => `gw:{${keyId}}:r`;
const quotaKeyOf = (keyId: string, month: string) => `gw:{${keyId}}:q:${month}`;

/** The largest lease one instance asks for; it grows, up to this, with what the last one served. */
const MAX_LEASE = 2_048;
/** A lease not drawn on for this long is returned, so that other instances can use it. */
const IDLE_LEASE_MS = 200;

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
 * Budgets shared by every instance on one Redis, decided in Redis by one script. The decisions of concurrent requests
 * share one round trip and one script run (ScriptBatch). A busy key's answer also leases this instance a few
 * requests, charged in Redis like admitted ones: while the lease lasts, requests are admitted without a round trip, and
 * a top-up is asked for in the background as it runs low. Leases are exact (every request admitted anywhere was charged
 * in Redis first), are at most half an instance's share of the room left, so a key at its limit gets none and is
 * decided in Redis request by request, and are returned when left idle. A key whose requests come one at a time gets
 * none (see wantOf). Leases are void once the connection drops (see leasing). Keys use a hash tag per API key id, so a
 * Redis Cluster would keep one key's state on one shard (a batch spans keys, so batching needs one Redis).
 * Usage is also recorded locally and flushed to the store as this instance's deltas; the Redis count is seeded from the
 * store when missing (Redis restarted empty).
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
  /**
   * Per key id (the verified key's own string, whose hash V8 keeps: a rate key built per request was hashed anew
   * each time); its TAT is also where the local share starts when Redis becomes unreachable.
   */
  private readonly views = lruOf<string, KeyView>(100_000);
  /** Views holding a lease, checked for idle ones to return. */
  private readonly leased = new Set<KeyView>();
  private readonly returner: NodeJS.Timeout;
  private epoch = 0;
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
    this.returner = setInterval(() => this.returnIdle(false), IDLE_LEASE_MS);
    this.returner.unref();
  }

  /**
   * Connects, but starts even when Redis is down: the failure policy answers until it comes up.
   */
  static async connect(opts: RedisLimiterOptions): Promise<RedisLimiter> {
    const client = await failFastRedis<CountCommands>(opts.url);
    const limiter = new RedisLimiter(opts, client);
    await firstAttempt(client);
    await limiter.membership.start();
    return limiter;
  }

  async charge(key: VerifiedKey, cost: number, tags?: UsageTags): Promise<LimitDecision> {
    const now = this.opts.now();
    const month = monthOf(now);
    const interval = intervalMs(key.plan.requestsPerSecond);
    // The leased path, most requests of a busy key, builds no key names and no objects of its own.
    const view = this.leasing() ? this.viewOf(key.id, now) : undefined;
    const leased = view && this.fromLease(view, now, month, interval, cost, tags);
    return leased || this.decide(key, cost, tags, now, month, interval, view);
  }

  /** A charge decided in Redis (with the lease it asks for), or by the failure policy. */
  private async decide(key: VerifiedKey, cost: number, tags: UsageTags | undefined, now: number, month: string, interval: number, view: KeyView | undefined): Promise<LimitDecision> {
    const limit = key.plan.requestsPerSecond;
    const rateKey = rateKeyOf(key.id);
    const quotaKey = quotaKeyOf(key.id, month);
    const burst = burstMs(interval);
    const of: Terms = { month, interval, burst, quota: key.plan.monthlyQuota };
    const carried = this.carried(rateKey, key.id);
    const want = view && !view.asking ? this.wantOf(view) : 0;
    if (want) view!.asking = true;
    if (view) view.waiting++;
    const alive = this.membership.alive;
    const run = () => this.charges.call([rateKey, quotaKey], [now, interval, cost, burst, key.plan.monthlyQuota, carried, want, alive]);
    let reply: ChargeReply;
    try {
      reply = await run();
      if (reply[0] === -1) {
        // Redis lost the month count, and with it the leases counted in it.
        if (view) view.credit = 0;
        await this.seed(key.id, month, quotaKey, now);
        reply = await run();
      }
    } catch (err) {
      if (view) view.waiting--;
      if (want) view!.asking = false;
      return this.failed(err, (share) => {
        this.startLocally(rateKey, key.id, interval);
        return this.opts.fallback!.charge(shareOf(key, share), cost, tags);
      });
    }
    if (view) view.waiting--;
    this.markUp();
    this.decidedLocally.delete(rateKey);
    this.see(key.id, now, reply, of, want > 0);
    // Refused, but a lease granted to a request just before this one in the same batch may admit it.
    const lateLease = reply[0] === 0 && view && this.fromLease(view, now, month, interval, cost, tags);
    if (lateLease) return lateLease;
    if (reply[0] === 2) return quotaRefusal(now, limit);
    if (reply[0] === 1) this.opts.recorder.admitted(key.id, now, cost, tags);
    return fromGcra(outcomeAt(reply[0] === 1, reply[1] / 1_000, interval, cost), limit, 'rate');
  }

  async countUsage(key: VerifiedKey, count: number, tags?: UsageTags): Promise<boolean> {
    const now = this.opts.now();
    const month = monthOf(now);
    const quotaKey = quotaKeyOf(key.id, month);
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
      reply = await this.charges.call([`gw:{${key.id}}:w:${budget.scope}`], [this.opts.now(), interval, 1, burstMs(interval), 0, 0, 0, 1]);
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
    const view = this.views.get(keyId);
    if (view) this.opts.fallback!.adoptTat(keyId, view.tat - setBack);
  }

  /**
   * Leases are asked for and drawn on only while connected: once the connection drops, or the next command fails,
   * they are void (the epoch moves), so failing closed nothing is admitted from one after that.
   */
  private leasing(): boolean {
    return !this.down && this.client.status === 'ready';
  }

  /**
   * None while the key's requests come one at a time (each waits for Redis, and no lease is left unused); once they
   * overlap a round trip, twice what the last one served or what is waiting, so that a busy key soon asks once per
   * round trip, not once per request.
   */
  private wantOf(view: KeyView): number {
    const want = Math.min(MAX_LEASE, 2 * Math.max(view.used, view.waiting));
    view.used = 0;
    return want;
  }

  /** Admits from the key's lease, when it holds enough; asks for more in the background as it runs low. */
  private fromLease(view: KeyView, now: number, month: string, interval: number, cost: number, tags: UsageTags | undefined): LimitDecision | undefined {
    if (view.credit < cost || view.epoch !== this.epoch || !this.leasing() || view.month !== month || view.interval !== interval) return undefined;
    view.credit -= cost;
    view.used += cost;
    view.usedAt = now;
    this.opts.recorder.admitted(view.keyId, now, cost, tags);
    if (view.credit < view.used && !view.asking) void this.topUp(view, now);
    const limit = 1_000 / view.interval;
    return fromGcra(outcomeAt(true, Math.max(0, view.tat - now), view.interval, cost), limit, 'rate');
  }

  /** The key's view; a new one holds no lease, and takes its terms from the first answer that grants one. */
  private viewOf(keyId: string, now: number): KeyView {
    let view = this.views.get(keyId);
    if (!view) {
      view = { keyId, month: '', interval: 0, burst: 0, quota: 0, tat: 0, credit: 0, used: 0, usedAt: now, asking: false, waiting: 0, epoch: this.epoch };
      this.views.set(keyId, view);
    }
    return view;
  }

  /** Asks for more lease (a charge of nothing) in the background. */
  private async topUp(view: KeyView, now: number): Promise<void> {
    view.asking = true;
    const want = this.wantOf(view);
    try {
      const reply = await this.charges.call([rateKeyOf(view.keyId), quotaKeyOf(view.keyId, view.month)], [now, view.interval, 0, view.burst, view.quota, 0, want, this.membership.alive]);
      // A missing month count (Redis restarted empty) is seeded by the next request that waits for Redis.
      if (reply[0] !== -1) this.see(view.keyId, now, reply, view, true);
    } catch (err) {
      limiterBackendErrors.inc({ backend: 'redis' });
      this.markDown(err);
    } finally {
      view.asking = false;
    }
  }

  /** Records Redis's answer in the key's view, with the lease it granted. */
  private see(keyId: string, now: number, reply: ChargeReply, terms: Terms, asked: boolean): void {
    const view = this.viewOf(keyId, now);
    if (asked) view.asking = false;
    view.tat = now + reply[1] / 1_000;
    if (reply[3] > 0) {
      // A lease of an earlier connection is void; one granted on other terms (a plan changed, a month turned) is
      // dropped rather than drawn on at these: it was charged at its own rate, so dropping it never over-admits.
      if (view.epoch !== this.epoch || view.month !== terms.month || view.interval !== terms.interval) view.credit = 0;
      view.month = terms.month;
      view.interval = terms.interval;
      view.burst = terms.burst;
      view.quota = terms.quota;
      view.epoch = this.epoch;
      view.credit += reply[3];
      view.usedAt = now;
      this.leased.add(view);
    }
  }

  /** Returns leases not drawn on for IDLE_LEASE_MS (all of them with `all`, on close), so that others may use them. */
  private returnIdle(all: boolean): Promise<unknown> {
    const now = this.opts.now();
    const returns: Array<Promise<unknown>> = [];
    for (const view of this.leased) {
      if (view.asking || (!all && now - view.usedAt < IDLE_LEASE_MS)) continue;
      this.leased.delete(view);
      const unused = view.credit;
      view.credit = 0;
      if (unused <= 0 || view.epoch !== this.epoch) continue;
      // Lost if Redis is unreachable: the lease then lapses as the key's TAT passes.
      returns.push(this.charges.call([rateKeyOf(view.keyId), quotaKeyOf(view.keyId, view.month)], [now, view.interval, -unused, view.burst, view.quota, 0, 0, 1]).catch(() => undefined));
    }
    return Promise.all(returns);
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
    clearInterval(this.returner);
    await this.returnIdle(true);
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
    this.epoch++;
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
