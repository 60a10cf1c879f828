import type { VerifiedKey } from '../keys/types.js';

/** `keyless`: the per-address budget of requests that carry no key. */
export type LimitReason = 'rate' | 'quota' | 'writes' | 'keyless';

export interface LimitDecision {
  allowed: boolean;
  reason?: LimitReason;
  /** RateLimit-Limit: requests per second of the plan. */
  limit: number;
  /** RateLimit-Remaining: requests left in the current second's worth of budget. */
  remaining: number;
  /** RateLimit-Reset: seconds until the budget is full again. */
  resetSeconds: number;
  /** Retry-After, when refused. */
  retryAfterSeconds?: number;
  /** Why a refusal will not go away by waiting (a batch larger than the burst). */
  detail?: string;
}

/** Where a charge was made, for the key owner's hourly usage: the API and network (empty for MCP). */
export interface UsageTags {
  api: string;
  network: string;
}

/** A separate per-key budget of transaction submissions: the ledger relay's, or one an operator set on an EVM network. */
export interface WriteBudget {
  /** Names the budget in the limiter's state: `ledger`, or the EVM network's id. */
  scope: string;
  perSecond: number;
}

/** Charges requests to a key's shared budget and monthly quota. */
export interface Limiter {
  /** `memory` or `redis`: for metric labels and readiness output. */
  readonly backend: 'memory' | 'redis';
  charge(key: VerifiedKey, cost: number, tags?: UsageTags): Promise<LimitDecision>;
  /**
   * Adds `count` to the key's monthly usage without touching its per-second budget (eth_subscription notifications).
   * Resolves false once the month's quota is used up.
   */
  countUsage(key: VerifiedKey, count: number, tags?: UsageTags): Promise<boolean>;
  /** One eth_sendRawTransaction against the key's separate write budget of that scope. */
  chargeWrite(key: VerifiedKey, budget: WriteBudget): Promise<LimitDecision>;
  /**
   * Readiness: true when the limiter can decide. Always in memory; on Redis, when Redis answers, or at any time under
   * fail-open (a local limiter answers, so taking the instance out of a load balancer would only make things worse).
   */
  ping(): Promise<boolean>;
  /** Persists every pending usage count; graceful shutdown loses none. */
  close(): Promise<void>;
  /** Counts of the key this instance has not written to the usage store yet (the limiter createLimiter builds). */
  unflushedUsage?(keyId: string): UsageDelta[];
}

/** Admitted requests (counted against the quota) or requests refused with 429. */
export type UsageOutcome = 'ok' | 'limited';

/**
 * Requests of one key in one UTC hour on one API and network. Admitted requests count what they were charged (a batch
 * of 10 counts 10, as against the quota); refused ones count one per refusal.
 */
export interface UsageDelta extends UsageTags {
  keyId: string;
  /** Start of the hour, ms since the epoch. */
  hour: number;
  outcome: UsageOutcome;
  count: number;
}

/**
 * Where usage is persisted (the key store's usage tables). One write adds hourly rows and, from the admitted ones,
 * the month counts the quota reads, atomically. `month` is `YYYY-MM` in UTC.
 */
export interface UsageStore {
  addUsage(deltas: UsageDelta[]): Promise<void>;
  usage(keyId: string, month: string): Promise<number>;
  /** Deletes hourly rows older than `beforeHour`; month counts stay. */
  pruneHourly?(beforeHour: number): Promise<void>;
}

/** Reads the hourly rows back, for the key owner's usage report. */
export interface UsageHistory {
  /** Rows of the key from `sinceHour` on, oldest first. */
  hourlyUsage(keyId: string, sinceHour: number): Promise<UsageDelta[]>;
}
