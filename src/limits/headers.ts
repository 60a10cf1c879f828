import { GatewayError } from '../errors.js';
import type { LimitDecision, LimitReason } from './types.js';

/** The RateLimit-* headers every charged response carries, and Retry-After on a refusal. */
export function rateLimitHeaders(decision: LimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  };
  if (!decision.allowed && decision.retryAfterSeconds !== undefined) headers['retry-after'] = String(decision.retryAfterSeconds);
  return headers;
}

const ERROR_OF = { rate: 'RATE_LIMITED', quota: 'QUOTA_EXHAUSTED', writes: 'WRITES_LIMITED', keyless: 'KEYLESS_LIMITED' } as const satisfies Record<LimitReason, string>;

/** The catalogue error of a refused decision, carrying its headers so every API's renderer sends them. */
export function refusalError(decision: LimitDecision): GatewayError {
  const reason = decision.reason ?? 'rate';
  return new GatewayError(ERROR_OF[reason], decision.detail ?? retryHint(decision), undefined, rateLimitHeaders(decision));
}

function retryHint(decision: LimitDecision): string | undefined {
  if (decision.retryAfterSeconds === undefined) return undefined;
  if (decision.reason === 'quota') {
    return `the plan's monthly quota is used up; it renews at the start of next month (UTC), in ${decision.retryAfterSeconds} s`;
  }
  return `retry after ${decision.retryAfterSeconds} s`;
}
