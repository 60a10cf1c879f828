import type { VerifiedKey } from '../keys/types.js';

export type LimitReason = 'rate' | 'quota' | 'writes';

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
  /** Why a refusal will not go away by waiting (a batch larger than the plan's burst). */
  detail?: string;
}

/** Charges requests to a key's shared budget and monthly quota. */
export interface Limiter {
  /** `memory` or `redis`: for metric labels and readiness output. */
  readonly backend: 'memory' | 'redis';
  charge(key: VerifiedKey, cost: number): Promise<LimitDecision>;
  /** The separate budget of eth_sendRawTransaction. */
  chargeWrite(key: VerifiedKey): Promise<LimitDecision>;
  /**
   * Readiness: true when the limiter can decide. Always in memory; on Redis, when Redis answers, or at any time under
   * fail-open (a local limiter answers, so taking the instance out of a load balancer would only make things worse).
   */
  ping(): Promise<boolean>;
  /** Persists every pending usage count; graceful shutdown loses none. */
  close(): Promise<void>;
}

/** Where monthly usage is persisted (the key store's usage table). `month` is `YYYY-MM` in UTC. */
export interface UsageStore {
  addUsage(deltas: Array<{ keyId: string; month: string; count: number }>): Promise<void>;
  usage(keyId: string, month: string): Promise<number>;
}
