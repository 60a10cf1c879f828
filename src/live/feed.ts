/**
 * One network's live feed for eth_subscribe: a single follower of the chain (polling its head, or woken by an
 * upstream WebSocket) that fans each new header and log out to every subscriber of this instance. However many
 * sockets subscribe, the upstream sees the requests of one follower: the head, the new headers, and when anyone
 * wants logs, one eth_getLogs over the new blocks, matched against each subscription in-process.
 */
import type { Logger } from 'pino';
import { rpcSubscriptions } from '../metrics.js';
import { matches, type ChainLog } from './criteria.js';
import type { SeenBlock } from './filterStore.js';
import { advance, removedLogs, type BlockHeader, type ChainSource } from './source.js';
import type { SubscriptionKind, SubscriptionRequest } from './subscriptionParams.js';

export type { SubscriptionKind };
/** Receives each result as JSON text, serialised once for all subscribers. */
export type Notify = (json: string) => void;

/** How much longer the head poll waits while an upstream WebSocket announces blocks: it is then only a safety net. */
const SIGNALLED_POLL_FACTOR = 10;

interface Subscriber extends SubscriptionRequest {
  notify: Notify;
}

/** Something that announces new blocks (an upstream WebSocket's newHeads), opened while the feed runs. */
export interface HeadSignal {
  open(onBlock: () => void, onState: (up: boolean) => void): void;
  close(): void;
}

export interface FeedOptions {
  network: string;
  source: ChainSource;
  pollMs: number;
  heads?: HeadSignal;
  /**
   * newHeads carry the block as eth_getBlockByNumber answers it, transactions included, as the official relay sends
   * them; without it, the bare header, as geth sends it.
   */
  wholeBlocks?: boolean;
  /**
   * Every address the logs of a subscription's addresses can carry (on the ledger, a contract's EVM and long-zero
   * addresses); refuses an address that can have none.
   */
  logAddresses?(addresses: string[]): Promise<string[]>;
  logger?: Logger;
}

export class NetworkFeed {
  private readonly subscribers = new Set<Subscriber>();
  private cursor?: number;
  private recent: SeenBlock[] = [];
  private starting?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  /** Set while an upstream WebSocket announces new blocks. */
  private signalled = false;
  private failing = false;

  constructor(private readonly opts: FeedOptions) {}

  /**
   * Adds a subscriber and resolves once the feed knows the head, so every block after this point reaches it.
   * Returns the function that removes it.
   */
  async subscribe(request: SubscriptionRequest, notify: Notify): Promise<() => void> {
    const { kind, criteria } = request;
    const aliases = criteria && criteria.address.length > 0 && this.opts.logAddresses ? await this.opts.logAddresses(criteria.address) : undefined;
    const sub: Subscriber = { ...request, criteria: aliases ? { ...criteria!, address: aliases } : criteria, notify };
    this.subscribers.add(sub);
    rpcSubscriptions.inc({ network: this.opts.network, type: kind });
    const remove = () => {
      if (!this.subscribers.delete(sub)) return;
      rpcSubscriptions.dec({ network: this.opts.network, type: kind });
      if (this.subscribers.size === 0) this.stop();
    };
    try {
      // No public mempool: pending-transaction subscriptions are kept but never fed, so they need no follower.
      if (kind !== 'newPendingTransactions') await this.start();
    } catch (err) {
      remove();
      throw err;
    }
    return remove;
  }

  get size(): number {
    return this.subscribers.size;
  }

  close(): void {
    this.subscribers.clear();
    this.stop();
  }

  private start(): Promise<void> {
    if (this.cursor !== undefined) return Promise.resolve();
    this.starting ??= (async () => {
      const head = await this.opts.source.head();
      const [block] = await this.opts.source.blocks(head, head);
      // Everyone left while the head was read: stay stopped.
      if (this.subscribers.size === 0) return;
      this.cursor = head;
      this.recent = block ? [{ n: head, hash: block.hash, logs: [] }] : [];
      this.opts.heads?.open(
        () => this.cursor !== undefined && this.follow(),
        (up) => (this.signalled = up),
      );
      this.schedule();
    })().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private stop(): void {
    this.opts.heads?.close();
    this.signalled = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.cursor = undefined;
    this.recent = [];
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.cursor === undefined) return;
    const ms = this.signalled ? this.opts.pollMs * SIGNALLED_POLL_FACTOR : this.opts.pollMs;
    this.timer = setTimeout(() => this.follow(), ms);
    this.timer.unref();
  }

  /** One follower at a time; a wake-up during a step runs another step right after it. */
  private follow(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.step()
      .catch((err) => {
        if (!this.failing) this.opts.logger?.warn({ err, network: this.opts.network }, 'live feed could not read the chain; retrying');
        this.failing = true;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.follow();
        } else this.schedule();
      });
  }

  private async step(): Promise<void> {
    const cursor = this.cursor;
    if (cursor === undefined) return;
    const wantLogs = [...this.subscribers].some((s) => s.kind === 'logs');
    const step = await advance(this.opts.source, cursor, this.recent, wantLogs ? (first, last) => this.opts.source.logs({ address: [], topics: [] }, first, last) : undefined);
    this.failing = false;
    // Unsubscribed by everyone while reading: nothing to deliver, and the feed has stopped.
    if (this.cursor !== cursor) return;
    this.cursor = step.cursor;
    this.recent = step.recent;
    const full = await this.withTransactions(step.added);
    step.added.forEach((header, i) => this.deliverHead(this.opts.wholeBlocks ? header : asHead(header), full[i]));
    for (const log of [...removedLogs(step.removed), ...step.logs]) this.deliverLog(log);
    if (!wantLogs) this.recent = this.recent.map(({ n, hash }) => ({ n, hash }));
  }

  /** The added blocks with their transactions in full, read only when a subscriber asked for them. */
  private async withTransactions(added: BlockHeader[]): Promise<Array<BlockHeader | undefined>> {
    const source = this.opts.source;
    if (!source.blockWithTransactions || ![...this.subscribers].some((s) => s.kind === 'newHeads' && s.includeTransactions)) return [];
    return Promise.all(added.map((h) => source.blockWithTransactions!(Number(BigInt(h.number)))));
  }

  private deliverHead(head: unknown, full: BlockHeader | undefined): void {
    let json: string | undefined;
    let fullJson: string | undefined;
    for (const sub of this.subscribers) {
      if (sub.kind !== 'newHeads') continue;
      if (sub.includeTransactions && full) sub.notify((fullJson ??= JSON.stringify(full)));
      else sub.notify((json ??= JSON.stringify(head)));
    }
  }

  private deliverLog(log: ChainLog): void {
    let json: string | undefined;
    for (const sub of this.subscribers) {
      if (sub.kind !== 'logs' || (sub.criteria && !matches(log, sub.criteria))) continue;
      sub.notify((json ??= JSON.stringify(log)));
    }
  }
}

/** A header as newHeads sends it: the block without its transactions and uncles. */
function asHead(block: BlockHeader): Record<string, unknown> {
  const { transactions: _t, uncles: _u, ...header } = block;
  return header;
}
