import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { VerifiedKey } from '../keys/types.js';
import { monthOf } from './calendar.js';
import { fromGcra, quotaRefusal } from './decision.js';
import { gcra, intervalMs } from './gcra.js';
import type { LimitDecision, Limiter, UsageStore } from './types.js';
import type { UsageRecorder } from './usageRecorder.js';

/** While the usage store cannot be read, a key's month count starts from what this instance counted, and is re-read this often. */
const SEED_RETRY_MS = 5_000;

interface MonthCount {
  month: string;
  used: number;
  /** Set when the store could not be read: re-seed at this time. */
  retryAt?: number;
}

interface KeyState {
  tat: number;
  writeTat: number;
  quota?: MonthCount;
  seeding?: Promise<void>;
}

export interface MemoryLimiterOptions {
  usage: UsageStore;
  recorder: UsageRecorder;
  writesPerSecond: number;
  now: () => number;
  logger?: Logger;
  /** Most keys held at once; the least recently used beyond it are re-seeded from the store when they return. */
  maxKeys?: number;
}

/** One process's budgets: exact GCRA per key, month counts seeded from the usage store on first use. */
export class MemoryLimiter implements Limiter {
  readonly backend = 'memory' as const;
  private readonly keys: LRUCache<string, KeyState>;
  private storeFailing = false;

  constructor(private readonly opts: MemoryLimiterOptions) {
    this.keys = new LRUCache({ max: opts.maxKeys ?? 100_000 });
  }

  async charge(key: VerifiedKey, cost: number): Promise<LimitDecision> {
    const state = this.stateOf(key.id);
    let now = this.opts.now();
    let month = monthOf(now);
    if (state.quota?.month !== month || (state.quota.retryAt !== undefined && now >= state.quota.retryAt)) {
      await this.seed(key.id, month, state, now);
      now = this.opts.now();
      month = monthOf(now);
    }
    const limit = key.plan.requestsPerSecond;
    const quota = state.quota!;
    if (quota.used + cost > key.plan.monthlyQuota) return quotaRefusal(now, limit);
    const outcome = gcra(state.tat, now, intervalMs(limit), cost);
    if (outcome.allowed) {
      state.tat = outcome.tat;
      quota.used += cost;
      this.opts.recorder.record(key.id, quota.month, cost);
    }
    return fromGcra(outcome, limit, 'rate');
  }

  async chargeWrite(key: VerifiedKey): Promise<LimitDecision> {
    const state = this.stateOf(key.id);
    const outcome = gcra(state.writeTat, this.opts.now(), intervalMs(this.opts.writesPerSecond), 1);
    if (outcome.allowed) state.writeTat = outcome.tat;
    return fromGcra(outcome, this.opts.writesPerSecond, 'writes');
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

  private stateOf(keyId: string): KeyState {
    let state = this.keys.get(keyId);
    if (!state) {
      state = { tat: 0, writeTat: 0 };
      this.keys.set(keyId, state);
    }
    return state;
  }

  /** Concurrent first requests of a key share one store read. Counts not yet flushed are added to what the store has. */
  private seed(keyId: string, month: string, state: KeyState, now: number): Promise<void> {
    state.seeding ??= this.opts.usage
      .usage(keyId, month)
      .then(
        (stored) => {
          state.quota = { month, used: stored + this.opts.recorder.unflushed(keyId, month) };
          if (this.storeFailing) this.opts.logger?.info('usage store reads recovered');
          this.storeFailing = false;
        },
        (err) => {
          state.quota = { month, used: this.opts.recorder.unflushed(keyId, month), retryAt: now + SEED_RETRY_MS };
          if (!this.storeFailing) this.opts.logger?.error({ err }, 'usage store read failed; month counts start from this instance until it returns');
          this.storeFailing = true;
        },
      )
      .finally(() => {
        state.seeding = undefined;
      });
    return state.seeding;
  }
}
