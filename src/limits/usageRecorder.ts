import type { Logger } from 'pino';
import { monthOf } from './calendar.js';
import type { UsageDelta, UsageStore, UsageTags } from './types.js';

const HOUR_MS = 3_600_000;
const NO_TAGS: UsageTags = { api: '', network: '' };

/** A pending delta and, for admitted requests, its month's pending count. */
interface PendingCount {
  delta: UsageDelta;
  month?: { admitted: number };
}

export function hourOf(ms: number): number {
  return ms - (ms % HOUR_MS);
}

/**
 * Counts requests per key, hour, API, network and outcome, and writes them to the usage store as deltas every
 * `flushMs`, so a crash loses at most one interval and a graceful close loses nothing. A failed write keeps its
 * deltas for the next attempt. Deltas (not totals) let any number of instances add to the same rows. The month count
 * the quota starts from is the sum of the admitted deltas, kept beside them for `unflushed`.
 */
export class UsageRecorder {
  private pending = new Map<string, UsageDelta>();
  private pendingMonths = new Map<string, { admitted: number }>();
  /**
   * Where the last count went: a key's requests come in runs of the same hour, API, network and outcome, and finding
   * them again by a joined string in two maps was the largest part of counting one (`count` at usageRecorder.ts, 2.8%
   * self of an eth_chainId in the edge profile).
   */
  private last?: PendingCount;
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private failing = false;
  private prunedAt = 0;

  constructor(
    private readonly store: UsageStore,
    private readonly flushMs: number,
    private readonly logger?: Logger,
    /** Hourly rows older than this are deleted, about once an hour by each instance. */
    private readonly historyMs = 40 * 86_400_000,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** `count` requests admitted at `at` (ms): they count against the month's quota. */
  admitted(keyId: string, at: number, count: number, tags: UsageTags = NO_TAGS): void {
    this.count(keyId, hourOf(at), tags.api, tags.network, 'ok', count);
  }

  /** A request refused at `at` by the budget or the quota. */
  refused(keyId: string, at: number, tags: UsageTags = NO_TAGS): void {
    this.count(keyId, hourOf(at), tags.api, tags.network, 'limited', 1);
  }

  /** Admitted here in that month but not yet in the store. */
  unflushed(keyId: string, month: string): number {
    return this.pendingMonths.get(`${keyId}\n${month}`)?.admitted ?? 0;
  }

  /** This instance's deltas of one key not yet in the store, for reports that must include the last second. */
  unflushedDeltas(keyId: string): UsageDelta[] {
    return [...this.pending.values()].filter((d) => d.keyId === keyId).map((d) => ({ ...d }));
  }

  /** One write at a time; a flush asked for during another runs after it. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    if (this.pending.size > 0) this.logger?.error({ keys: this.pending.size }, 'usage counts could not be persisted at shutdown');
  }

  /** Adds to the pending delta of that key, hour, API, network and outcome (and to its month when admitted). */
  private count(keyId: string, hour: number, api: string, network: string, outcome: UsageDelta['outcome'], count: number): void {
    const d = this.last?.delta;
    const same = d !== undefined && d.keyId === keyId && d.hour === hour && d.api === api && d.network === network && d.outcome === outcome;
    const pending = same ? this.last! : (this.last = this.pendingCount(keyId, hour, api, network, outcome));
    pending.delta.count += count;
    if (pending.month) pending.month.admitted += count;
  }

  /** The pending delta of that key, hour, API, network and outcome, and its month's count when admitted; made on first use. */
  private pendingCount(keyId: string, hour: number, api: string, network: string, outcome: UsageDelta['outcome']): PendingCount {
    const id = `${keyId}\n${hour}\n${api}\n${network}\n${outcome}`;
    let delta = this.pending.get(id);
    if (!delta) this.pending.set(id, (delta = { keyId, hour, api, network, outcome, count: 0 }));
    if (outcome !== 'ok') return { delta };
    const monthId = `${keyId}\n${monthOf(hour)}`;
    let month = this.pendingMonths.get(monthId);
    if (!month) this.pendingMonths.set(monthId, (month = { admitted: 0 }));
    return { delta, month };
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.pendingMonths = new Map();
    this.last = undefined;
    try {
      await this.store.addUsage([...batch.values()]);
      if (this.failing) this.logger?.info('usage store writes recovered');
      this.failing = false;
      await this.prune();
    } catch (err) {
      for (const d of batch.values()) this.count(d.keyId, d.hour, d.api, d.network, d.outcome, d.count);
      if (!this.failing) this.logger?.error({ err }, 'usage store write failed; counts are kept and retried');
      this.failing = true;
    }
  }

  private async prune(): Promise<void> {
    const now = this.now();
    if (!this.store.pruneHourly || now - this.prunedAt < HOUR_MS) return;
    this.prunedAt = now;
    try {
      await this.store.pruneHourly(hourOf(now) - this.historyMs);
    } catch (err) {
      this.logger?.warn({ err }, 'old hourly usage could not be deleted; tried again in an hour');
    }
  }
}
