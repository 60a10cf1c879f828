import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { VerifiedKey } from '../keys/types.js';
import { burstRefusal } from './decision.js';
import { MemoryLimiter } from './memory.js';
import { countRefusal, limiterDuration } from './metrics.js';
import { RedisLimiter } from './redis.js';
import type { LimitDecision, Limiter, UsageStore } from './types.js';
import { UsageRecorder } from './usageRecorder.js';

export type { LimitDecision, Limiter, UsageStore } from './types.js';

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
  const recorder = new UsageRecorder(usage, limits.quotaFlushMs, logger);
  const memory = () => new MemoryLimiter({ usage, recorder, writesPerSecond: limits.writesPerSecond, now, logger });
  const backend: Limiter = limits.redisUrl
    ? await RedisLimiter.connect({
        url: limits.redisUrl,
        usage,
        recorder,
        writesPerSecond: limits.writesPerSecond,
        now,
        logger,
        fallback: limits.redisFailure === 'fail-open' ? memory() : undefined,
      })
    : memory();
  recorder.start();
  return new MeteredLimiter(backend, recorder);
}

/** What every backend shares: batches beyond the burst, the heavy-writes exemption, refusal counts and latency. */
class MeteredLimiter implements Limiter {
  private readonly duration;

  constructor(
    private readonly inner: Limiter,
    private readonly recorder: UsageRecorder,
  ) {
    this.duration = limiterDuration.labels({ backend: inner.backend });
  }

  get backend() {
    return this.inner.backend;
  }

  charge(key: VerifiedKey, cost: number): Promise<LimitDecision> {
    const tooLarge = burstRefusal(cost, key.plan.requestsPerSecond, 'rate');
    if (tooLarge) return Promise.resolve(this.counted(tooLarge));
    return this.timed(() => this.inner.charge(key, cost));
  }

  chargeWrite(key: VerifiedKey): Promise<LimitDecision> {
    if (key.heavyWrites) return Promise.resolve({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0 });
    return this.timed(() => this.inner.chargeWrite(key));
  }

  ping(): Promise<boolean> {
    return this.inner.ping();
  }

  async close(): Promise<void> {
    await this.inner.close();
    await this.recorder.close();
  }

  private async timed(decide: () => Promise<LimitDecision>): Promise<LimitDecision> {
    const end = this.duration.startTimer();
    try {
      return this.counted(await decide());
    } finally {
      end();
    }
  }

  private counted(decision: LimitDecision): LimitDecision {
    if (decision.reason) countRefusal(decision.reason);
    return decision;
  }
}
