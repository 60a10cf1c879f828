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
}

/** Charges requests to a key's shared budget and monthly quota. */
export interface Limiter {
  charge(key: VerifiedKey, cost: number): Promise<LimitDecision>;
  /** The separate budget of eth_sendRawTransaction. */
  chargeWrite(key: VerifiedKey): Promise<LimitDecision>;
  close(): Promise<void>;
}

/** Where monthly usage is persisted (the key store's usage table). `month` is `YYYY-MM` in UTC. */
export interface UsageStore {
  addUsage(deltas: Array<{ keyId: string; month: string; count: number }>): Promise<void>;
  usage(keyId: string, month: string): Promise<number>;
}
