import type { Config } from '../config/schema.js';

export type HealthConfig = Config['upstreamHealth'];

/** Smoothing of the latency average and the error rate: recent behaviour counts, one outlier does not decide. */
const LATENCY_ALPHA = 0.2;
const ERROR_ALPHA = 0.1;
/** Successful latencies kept for the hedge delay, and how often its percentile is recomputed. */
const WINDOW = 64;
const RECOMPUTE_EVERY = 16;

/**
 * What the gateway has seen of one upstream: latency of its answers, how often it failed or lost a hedge, how far its
 * head is behind the best one. Pure bookkeeping; the pool feeds it and asks for an order.
 */
export class UpstreamHealth {
  /** Exponentially weighted average latency of successful answers, ms; undefined until one is seen. */
  private latencyMs?: number;
  /** Exponentially weighted share of attempts that failed or were overtaken by a hedge. */
  private errorRate = 0;
  private consecutiveFailures = 0;
  private readonly window: number[] = [];
  private samples = 0;
  private delayMs?: number;
  /** Latest block number a probe saw. */
  head?: bigint;

  constructor(private readonly config: HealthConfig) {}

  succeeded(latencyMs: number): void {
    this.latencyMs = this.latencyMs === undefined ? latencyMs : this.latencyMs + LATENCY_ALPHA * (latencyMs - this.latencyMs);
    this.errorRate *= 1 - ERROR_ALPHA;
    this.consecutiveFailures = 0;
    if (this.window.length === WINDOW) this.window[this.samples % WINDOW] = latencyMs;
    else this.window.push(latencyMs);
    if (++this.samples % RECOMPUTE_EVERY === 1) this.delayMs = undefined;
  }

  failed(): void {
    this.errorRate += ERROR_ALPHA * (1 - this.errorRate);
    this.consecutiveFailures++;
  }

  /** Another upstream answered first while this one was still working: slow, not broken. */
  overtaken(): void {
    this.errorRate += ERROR_ALPHA * (1 - this.errorRate);
  }

  /** Lower is better: latency, inflated by the error rate. Unmeasured upstreams score 0, so they get tried. */
  score(): number {
    return (this.latencyMs ?? 0) * (1 + 4 * this.errorRate);
  }

  /** Out of rotation while failing repeatedly or lagging; a successful probe or answer brings it back. */
  inRotation(bestHead: bigint | undefined): boolean {
    if (this.consecutiveFailures >= this.config.failuresBeforeEjection) return false;
    return this.head === undefined || bestHead === undefined || bestHead - this.head <= BigInt(this.config.maxHeadLagBlocks);
  }

  /**
   * How long to wait for this upstream before asking the next: twice the 95th percentile of its recent successful
   * latencies (answers it never gave are not in it, so stalls do not drag the delay up), within the configured floor
   * and the attempt timeout. Undefined (no hedge) until it has answered.
   */
  hedgeDelayMs(timeoutMs: number): number | undefined {
    if (this.window.length === 0) return undefined;
    if (this.delayMs === undefined) {
      const sorted = [...this.window].sort((a, b) => a - b);
      const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
      this.delayMs = Math.min(timeoutMs, Math.max(this.config.hedgeMinDelayMs, 2 * p95));
    }
    return this.delayMs;
  }
}
