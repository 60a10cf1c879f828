import { Counter, Gauge } from 'prom-client';
import { type CounterSeries, HotCounter, HotHistogram } from '../hotMetrics.js';
import { registry } from '../metrics.js';

/** Labels are a reason or a backend name, never a key or key id. */
export type RefusalReason = 'rate' | 'quota' | 'plan' | 'writes' | 'keyless';

/**
 * A refusal is counted on the path that refuses a flood (a keyless client's thousands of handshakes a second), so its
 * series are found once here rather than by prom-client's label hashing on each count.
 */
export const limitRefusals = new HotCounter(
  'gateway_limit_refusals_total',
  'Requests refused by the limits: rate (budget), quota (monthly), plan (API or relay not included), writes, keyless (per-address budget without a key)',
  ['reason'],
  registry,
);
const REASONS: readonly RefusalReason[] = ['rate', 'quota', 'plan', 'writes', 'keyless'];
const refusalsBy = Object.fromEntries(REASONS.map((reason) => [reason, limitRefusals.child(reason)])) as Record<RefusalReason, CounterSeries>;

export const limiterBackendErrors = new Counter({
  name: 'gateway_limiter_backend_errors_total',
  help: 'Limiter decisions that could not reach their backend (answered by the failure policy)',
  labelNames: ['backend'] as const,
  registers: [registry],
});

export const limiterDegraded = new Gauge({
  name: 'gateway_limiter_degraded',
  help: '1 while the limiter backend is unreachable and the failure policy is answering',
  labelNames: ['backend'] as const,
  registers: [registry],
});

export const limiterDuration = new HotHistogram(
  'gateway_limiter_duration_seconds',
  'Time the limiter takes to decide one charge',
  ['backend'],
  [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5],
  registry,
);

export function countRefusal(reason: RefusalReason): void {
  refusalsBy[reason].inc();
}
