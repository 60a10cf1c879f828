import type { LRUCache } from 'lru-cache';
import { lruOf } from '../lru.js';
import type { Logger } from 'pino';
import type { VerifiedKey } from '../keys/types.js';
import { monthOf } from './calendar.js';
import { fromGcra, quotaRefusal } from './decision.js';
import { gcra, intervalMs } from './gcra.js';
import type { LimitDecision, Limiter, UsageStore, UsageTags, WriteBudget } from './types.js';
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
  /** Per write-budget scope. */
  writeTats: Map<string, number>;
  quota?: MonthCount;
  seeding?: Promise<void>;
}

export interface MemoryLimiterOptions {
  usage: UsageStore;
  recorder: UsageRecorder;
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
    this.keys = lruOf(opts.maxKeys ?? 100_000);
  }

  charge(key: VerifiedKey, cost: number, tags?: UsageTags): Promise<LimitDecision> {
    const state = this.stateOf(key.id);
    const now = this.monthIsCounted(state, this.opts.now());
    // Every charge but a key's first of the month is decided at once, without an async function's frame around it.
    if (now !== undefined) return Promise.resolve(this.decide(key, cost, tags, state, now));
    return this.seedMonth(key.id, state).then((seeded) => this.decide(key, cost, tags, state, seeded));
  }

  private decide(key: VerifiedKey, cost: number, tags: UsageTags | undefined, state: KeyState, now: number): LimitDecision {
    const quota = state.quota!;
    const limit = key.plan.requestsPerSecond;
    if (quota.used + cost > key.plan.monthlyQuota) return quotaRefusal(now, limit);
    const outcome = gcra(state.tat, now, intervalMs(limit), cost);
    if (outcome.allowed) {
      state.tat = outcome.tat;
      quota.used += cost;
      this.opts.recorder.admitted(key.id, now, cost, tags);
    }
    return fromGcra(outcome, limit, 'rate');
  }

  async countUsage(key: VerifiedKey, count: number, tags?: UsageTags): Promise<boolean> {
    const state = this.stateOf(key.id);
    const now = this.monthIsCounted(state, this.opts.now()) ?? (await this.seedMonth(key.id, state));
    const quota = state.quota!;
    quota.used += count;
    this.opts.recorder.admitted(key.id, now, count, tags);
    return quota.used < key.plan.monthlyQuota;
  }

  /**
   * `now` when the key's count of the current month is here and sound (every charge but a key's first of the month,
   * or one while the store is failing), so the charge is decided without waiting; undefined when it must be seeded.
   */
  private monthIsCounted(state: KeyState, now: number): number | undefined {
    const quota = state.quota;
    if (quota?.month !== monthOf(now) || (quota.retryAt !== undefined && now >= quota.retryAt)) return undefined;
    return now;
  }

  /** Seeds the key's count of the current month from the store; resolves with the time after it. */
  private async seedMonth(keyId: string, state: KeyState): Promise<number> {
    const now = this.opts.now();
    await this.seed(keyId, monthOf(now), state, now);
    return this.opts.now();
  }

  async chargeWrite(key: VerifiedKey, budget: WriteBudget): Promise<LimitDecision> {
    const state = this.stateOf(key.id);
    const outcome = gcra(state.writeTats.get(budget.scope) ?? 0, this.opts.now(), intervalMs(budget.perSecond), 1);
    if (outcome.allowed) state.writeTats.set(budget.scope, outcome.tat);
    return fromGcra(outcome, budget.perSecond, 'writes');
  }

  /** The key's TAT (ms), when this limiter has decided for it: what a shared limiter carries back to its store. */
  tatOf(keyId: string): number | undefined {
    return this.keys.get(keyId)?.tat;
  }

  /** Continues the key's budget from `tat` (ms): a shared limiter's state, when this one takes over from it. */
  adoptTat(keyId: string, tat: number): void {
    this.stateOf(keyId).tat = tat;
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

  private stateOf(keyId: string): KeyState {
    let state = this.keys.get(keyId);
    if (!state) {
      state = { tat: 0, writeTats: new Map() };
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
