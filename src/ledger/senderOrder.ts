/**
 * Keeps one sender's transactions in nonce order on their way to consensus. The mirror node's `ethereum_nonce` lags
 * the consensus node by a few seconds, so a burst (nonces n, n+1, … sent back to back) would be refused as a nonce gap
 * past the first. Two parts, as the official relay splits them (its LockService and its transaction pool's pending
 * count, docs/nonce-ordering-with-locks.md and docs/nonce-management-and-tx-pool.md):
 *
 * - `SenderLocks`: a sender's submissions take turns, FIFO, from precheck until a consensus node has accepted the
 *   transaction (or refused it), so they reach consensus in the order they passed the nonce check;
 * - `PendingNonces`: the nonces this relay has submitted that the mirror node does not show yet, so the nonce check and
 *   `eth_getTransactionCount(…, "pending")` count them.
 *
 * The local implementations hold one instance's view; a Redis-backed pair implementing the same interfaces would share
 * it between instances.
 */
import { lruOf } from '../lru.js';

export interface SenderLocks {
  /** Waits for the sender's turn; the function returned ends it (calling it again does nothing). */
  acquire(sender: string): Promise<() => void>;
}

export interface PendingNonces {
  add(sender: string, nonce: number): Promise<void>;
  remove(sender: string, nonce: number): Promise<void>;
  /** The sender's submitted nonces not yet known to be on the mirror node, in no particular order. */
  of(sender: string): Promise<number[]>;
}

/** The nonce a sender's next transaction must carry: past its account's and past every pending one above it. */
export function nextNonce(accountNonce: number, pending: number[]): number {
  let next = accountNonce;
  for (const nonce of pending) if (nonce >= next) next = nonce + 1;
  return next;
}

/**
 * One process's turns. A turn is released by its holder or, should the holder hang, after `maxHoldMs` (the official
 * relay's LOCK_MAX_HOLD_MS default is 30 s), so one stuck submission cannot block its sender for good. Only senders
 * with a turn held or awaited have an entry.
 */
export class LocalSenderLocks implements SenderLocks {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly maxHoldMs = 30_000) {}

  async acquire(sender: string): Promise<() => void> {
    const key = sender.toLowerCase();
    const before = this.tails.get(key) ?? Promise.resolve();
    let end!: () => void;
    const held = new Promise<void>((resolve) => (end = resolve));
    const tail = before.then(() => held);
    this.tails.set(key, tail);
    await before;
    const timer = setTimeout(() => release(), this.maxHoldMs).unref();
    const release = () => {
      clearTimeout(timer);
      end();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    return release;
  }
}

/**
 * One process's pending nonces, for at most `maxSenders` senders (least recently used dropped first) and at most
 * `maxPerSender` nonces each (the lowest dropped first: the mirror node shows those first). A sender's entry expires
 * `ttlMs` after its last submission, in case a removal never comes.
 */
export class LocalPendingNonces implements PendingNonces {
  private readonly bySender;

  constructor(
    private readonly opts: { maxSenders: number; maxPerSender: number; ttlMs: number } = { maxSenders: 10_000, maxPerSender: 64, ttlMs: 60_000 },
  ) {
    this.bySender = lruOf<string, Set<number>>(opts.maxSenders, { ttlMs: opts.ttlMs, now: () => Date.now() });
  }

  async add(sender: string, nonce: number): Promise<void> {
    const key = sender.toLowerCase();
    const set = this.bySender.get(key) ?? new Set<number>();
    set.add(nonce);
    if (set.size > this.opts.maxPerSender) set.delete(Math.min(...set));
    this.bySender.set(key, set);
  }

  async remove(sender: string, nonce: number): Promise<void> {
    const key = sender.toLowerCase();
    const set = this.bySender.get(key, { updateAgeOnGet: false });
    if (!set) return;
    set.delete(nonce);
    if (set.size === 0) this.bySender.delete(key);
  }

  async of(sender: string): Promise<number[]> {
    return [...(this.bySender.get(sender.toLowerCase(), { updateAgeOnGet: false }) ?? [])];
  }
}
