/**
 * Transactions this relay has submitted and whose consensus receipt has not come back yet: the ledger has no public
 * mempool, so this is what txpool_* can show, as the official relay shows its own pending pool
 * (TransactionPoolService). Kept as signed envelopes (hex) per sender.
 *
 * `LocalPendingPool` holds one instance's submissions; the pool shared by every instance on one Redis
 * (sharedPendingPool.ts) implements the same interface.
 */
export interface PendingPool {
  add(sender: string, raw: string): Promise<void>;
  remove(sender: string, raw: string): Promise<void>;
  /** Every pending envelope, senders in no particular order. */
  all(): Promise<string[]>;
  from(sender: string): Promise<string[]>;
}

export class LocalPendingPool implements PendingPool {
  private readonly bySender = new Map<string, Set<string>>();

  async add(sender: string, raw: string): Promise<void> {
    const key = sender.toLowerCase();
    const set = this.bySender.get(key) ?? new Set<string>();
    set.add(raw);
    this.bySender.set(key, set);
  }

  async remove(sender: string, raw: string): Promise<void> {
    const key = sender.toLowerCase();
    const set = this.bySender.get(key);
    if (!set) return;
    set.delete(raw);
    if (set.size === 0) this.bySender.delete(key);
  }

  async all(): Promise<string[]> {
    return [...this.bySender.values()].flatMap((set) => [...set]);
  }

  async from(sender: string): Promise<string[]> {
    return [...(this.bySender.get(sender.toLowerCase()) ?? [])];
  }
}
