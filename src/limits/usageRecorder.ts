import type { Logger } from 'pino';
import type { UsageStore } from './types.js';

type Delta = { keyId: string; month: string; count: number };

/**
 * Counts admitted requests per key and month and writes them to the usage store as deltas every `flushMs`, so a
 * crash loses at most one interval and a graceful close loses nothing. A failed write keeps its deltas for the next
 * attempt. Deltas (not totals) let any number of instances add to the same row.
 */
export class UsageRecorder {
  private pending = new Map<string, Delta>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(
    private readonly store: UsageStore,
    private readonly flushMs: number,
    private readonly logger?: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  record(keyId: string, month: string, count: number): void {
    const id = `${keyId}\n${month}`;
    const delta = this.pending.get(id);
    if (delta) delta.count += count;
    else this.pending.set(id, { keyId, month, count });
  }

  /** Counted here but not yet in the store. */
  unflushed(keyId: string, month: string): number {
    return this.pending.get(`${keyId}\n${month}`)?.count ?? 0;
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

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.addUsage([...batch.values()]);
      if (this.failing) this.logger?.info('usage store writes recovered');
      this.failing = false;
    } catch (err) {
      for (const d of batch.values()) this.record(d.keyId, d.month, d.count);
      if (!this.failing) this.logger?.error({ err }, 'usage store write failed; counts are kept and retried');
      this.failing = true;
    }
  }
}
