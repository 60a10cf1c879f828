import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { VerifiedKey } from '../keys/types.js';
import { burstRefusal } from './decision.js';
import { MemoryLimiter } from './memory.js';
import { countRefusal, limiterDuration } from './metrics.js';
import { RedisLimiter } from './redis.js';
import type { LimitDecision, Limiter, UsageDelta, UsageStore, UsageTags, WriteBudget } from './types.js';
import { UsageRecorder } from './usageRecorder.js';

export type { LimitDecision, Limiter, UsageDelta, UsageStore, UsageTags, WriteBudget } from './types.js';

export interface CreateLimiterOptions {
  limits: Config['limits'];
  usage: UsageStore;
  logger?: Logger;
  /** Clock in ms since the epoch; tests inject one to cross seconds and month boundaries. */
  now?: () => number;
}

/** The limiter the config asks for: Redis when `limits.redisUrl` is set, else in-memory. Starts its usage flushing. */
export async function createLimiter(opts: CreateLimiterOptions): Promise<Limiter> {
  const { limits, usage, logger } = opts;
  const now = opts.now ?? Date.now;
  const recorder = new UsageRecorder(usage, limits.quotaFlushMs, logger, limits.usageHistoryDays * 86_400_000, now);
  const memory = () => new MemoryLimiter({ usage, recorder, now, logger });
  const backend: Limiter = limits.redisUrl
    ? await RedisLimiter.connect({
        url: limits.redisUrl,
        usage,
        recorder,
        now,
        logger,
        fallback: limits.redisFailure === 'fail-open' ? memory() : undefined,
      })
    : memory();
  recorder.start();
  return new MeteredLimiter(backend, recorder, now);
}

/** What every backend shares: batches beyond the burst, the heavy-writes exemption, refusal counts and latency. */
class MeteredLimiter implements Limiter {
  private readonly duration;

  constructor(
    private readonly inner: Limiter,
    private readonly recorder: UsageRecorder,
    private readonly now: () => number,
  ) {
    this.duration = limiterDuration.child(inner.backend);
  }

  get backend() {
    return this.inner.backend;
  }

  charge(key: VerifiedKey, cost: number, tags?: UsageTags): Promise<LimitDecision> {
    const tooLarge = burstRefusal(cost, key.plan.requestsPerSecond, 'rate');
    if (tooLarge) return Promise.resolve(this.decided(tooLarge, key, tags));
    return this.timed(performance.now(), this.inner.charge(key, cost, tags), key, tags);
  }

  /** This instance's counts of the key not yet written to the store. */
  unflushedUsage(keyId: string): UsageDelta[] {
    return this.recorder.unflushedDeltas(keyId);
  }

  countUsage(key: VerifiedKey, count: number, tags?: UsageTags): Promise<boolean> {
    return this.inner.countUsage(key, count, tags);
  }

  chargeWrite(key: VerifiedKey, budget: WriteBudget): Promise<LimitDecision> {
    if (key.heavyWrites) return Promise.resolve({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0 });
    return this.timed(performance.now(), this.inner.chargeWrite(key, budget));
  }

  ping(): Promise<boolean> {
    return this.inner.ping();
  }

  async close(): Promise<void> {
    await this.inner.close();
    await this.recorder.close();
  }

  /**
   * Times a decision from `started`, taken just before it was asked for, until it is known. One then(), not an async
   * function: not startTimer either, whose closures and hrtime pairs cost more than the in-memory decision they time.
   */
  private timed(started: number, deciding: Promise<LimitDecision>, key?: VerifiedKey, tags?: UsageTags): Promise<LimitDecision> {
    return deciding.then(
      (decision) => {
        this.duration.observe((performance.now() - started) / 1e3);
        return this.decided(decision, key, tags);
      },
      (err: unknown) => {
        this.duration.observe((performance.now() - started) / 1e3);
        throw err;
      },
    );
  }

  /**
   * A decision counted by its refusal reason. A refused charge of `key` is recorded here: the backend records what it
   * admits (and seeds month counts from those records).
   */
  private decided(decision: LimitDecision, key?: VerifiedKey, tags?: UsageTags): LimitDecision {
    if (decision.reason) countRefusal(decision.reason);
    if (key && !decision.allowed) this.recorder.refused(key.id, this.now(), tags);
    return decision;
  }
}
