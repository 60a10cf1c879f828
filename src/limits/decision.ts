import { msUntilNextMonth } from './calendar.js';
import { exceedsBurst, type GcraOutcome } from './gcra.js';
import type { LimitDecision, LimitReason } from './types.js';

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1_000 - 1e-9));

/** A decision from the GCRA outcome; `reason` names the budget when refused. */
export function fromGcra(outcome: GcraOutcome, limit: number, reason: LimitReason): LimitDecision {
  const decision: LimitDecision = { allowed: outcome.allowed, limit, remaining: outcome.remaining, resetSeconds: seconds(outcome.resetMs) };
  if (!outcome.allowed) {
    decision.reason = reason;
    decision.retryAfterSeconds = Math.max(1, seconds(outcome.retryMs));
  }
  return decision;
}

/** The monthly quota is spent: nothing more until the month rolls over (UTC). */
export function quotaRefusal(now: number, limit: number): LimitDecision {
  const untilMonth = Math.max(1, seconds(msUntilNextMonth(now)));
  return { allowed: false, reason: 'quota', limit, remaining: 0, resetSeconds: untilMonth, retryAfterSeconds: untilMonth };
}

/** A batch larger than one second's burst can never be admitted, so waiting would not help: say so. */
export function burstRefusal(cost: number, perSecond: number, reason: LimitReason): LimitDecision | undefined {
  if (!exceedsBurst(cost, perSecond)) return undefined;
  return {
    allowed: false,
    reason,
    limit: perSecond,
    remaining: 0,
    resetSeconds: 1,
    retryAfterSeconds: 1,
    detail: `${cost} calls in one request exceed the ${reason === 'keyless' ? 'burst allowed without an API key' : "plan's burst"} of ${Math.max(1, Math.floor(perSecond))}; send smaller batches`,
  };
}
