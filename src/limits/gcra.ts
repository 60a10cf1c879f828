/**
 * GCRA (the generic cell rate algorithm): a key's state is one number, the theoretical arrival time (TAT) of its next
 * request. Each request pushes the TAT forward by one emission interval; a request is refused when that would put the
 * TAT more than one second ahead of now. So a full budget admits one second's worth at once, then exactly the rate,
 * and there is no window edge to burst across. The same arithmetic runs in memory and in the Redis Lua script.
 */
const BURST_MS = 1_000;
/** Absorbs float error so that exactly one second's worth fits. */
const EPSILON = 1e-6;

export interface GcraOutcome {
  allowed: boolean;
  remaining: number;
  /** Milliseconds until the budget is full again. */
  resetMs: number;
  /** Milliseconds until this cost would be admitted, when refused. */
  retryMs: number;
}

export function intervalMs(perSecond: number): number {
  return 1_000 / perSecond;
}

/** How far ahead of now the TAT may run: one second's worth, and never less than one request (plans below 1/s). */
export function burstMs(interval: number): number {
  return Math.max(BURST_MS, interval);
}

/** True when `cost` requests could never fit in one burst of `perSecond`. */
export function exceedsBurst(cost: number, perSecond: number): boolean {
  const interval = intervalMs(perSecond);
  return cost * interval > burstMs(interval) + EPSILON;
}

/** Decides one charge against the stored TAT; `tat` is what to store when allowed. */
export function gcra(storedTat: number, now: number, interval: number, cost: number): GcraOutcome & { tat: number } {
  const tat = Math.max(storedTat, now);
  const next = tat + cost * interval;
  const allowed = next - now <= burstMs(interval) + EPSILON;
  const outcome = outcomeAt(allowed, (allowed ? next : tat) - now, interval, cost);
  // Written out, not spread: a literal spreading an object is a runtime call on this Node, and this runs per request.
  return { tat: allowed ? next : tat, allowed, remaining: outcome.remaining, resetMs: outcome.resetMs, retryMs: outcome.retryMs };
}

/** The outcome from how far the (new, or unchanged when refused) TAT lies ahead of now: what the Lua script returns. */
export function outcomeAt(allowed: boolean, aheadMs: number, interval: number, cost: number): GcraOutcome {
  const burst = burstMs(interval);
  return {
    allowed,
    remaining: Math.max(0, Math.floor((burst - aheadMs) / interval + EPSILON)),
    resetMs: aheadMs,
    retryMs: allowed ? 0 : aheadMs + cost * interval - burst,
  };
}
