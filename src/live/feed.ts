/**
 * One network's live feed for eth_subscribe: a single follower of the chain (polling its head, or woken by an
 * upstream WebSocket) that fans each new header and log out to every subscriber of this instance. However many
 * sockets subscribe, the upstream sees the requests of one follower: the head, the new headers, and when anyone
 * wants logs, one eth_getLogs over the new blocks, matched against each subscription in-process.
 */
import type { Logger } from 'pino';
import { isGatewayError } from '../errors.js';
import { rpcSubscriptions } from '../metrics.js';
import { matches, type ChainLog } from './criteria.js';
import type { SeenBlock } from './filterStore.js';
import { MAX_BLOCKS_PER_POLL } from './pollSize.js';
import type { Batch, SharedFollower } from './sharedFollower.js';
import { advance, numberOf, removedLogs, type BlockHeader, type ChainSource } from './source.js';
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
  /**
   * With Redis: the network's follower shared by every instance. The feed then delivers what the leader publishes,
   * and reads the chain itself only while it leads, or while Redis is unreachable.
   */
  shared?: SharedFollower;
  logger?: Logger;
}

type Delivery = Pick<Batch, 'added' | 'logs' | 'removed'>;

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
  /** The shared stream's newest entry delivered here. */
  private streamId = '0-0';
  /** Where this instance, while it leads, reads the chain from. */
  private lead?: Pick<Batch, 'cursor' | 'recent'>;
  /** Set while Redis is unreachable and this instance follows the chain on its own. */
  private solo = false;

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
      // The stream's tail is read before the head: what is published in between is delivered, less what the head covers.
      const streamId = this.opts.shared && (await this.opts.shared.tail().catch(() => `${Date.now()}-0`));
      const head = await this.opts.source.head();
      const [block] = await this.opts.source.blocks(head, head);
      // Everyone left while the head was read: stay stopped.
      if (this.subscribers.size === 0) return;
      this.cursor = head;
      this.recent = block ? [{ n: head, hash: block.hash, logs: [] }] : [];
      if (streamId) this.streamId = streamId;
      // Shared, only the leader is woken by the upstream's announcements (opened when it takes the lease).
      if (!this.opts.shared) this.openHeads();
      this.schedule();
    })().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private openHeads(): void {
    this.opts.heads?.open(
      () => this.cursor !== undefined && this.follow(),
      (up) => (this.signalled = up),
    );
  }

  private closeHeads(): void {
    this.opts.heads?.close();
    this.signalled = false;
  }

  private stop(): void {
    this.opts.shared?.release();
    this.lead = undefined;
    this.closeHeads();
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
    if (this.opts.shared) {
      try {
        await this.sharedStep(this.opts.shared, cursor);
        if (this.solo) this.opts.logger?.info({ network: this.opts.network }, 'live feed reached Redis again; following the shared stream');
        this.solo = false;
        this.failing = false;
        return;
      } catch (err) {
        // The chain could not be read (a GatewayError, as sources throw): retried as ever, still on the shared stream.
        if (isGatewayError(err)) throw err;
        if (!this.solo) this.opts.logger?.warn({ err, network: this.opts.network }, 'live feed cannot reach Redis; following the chain on its own until it can');
        this.solo = true;
        this.lead = undefined;
        this.opts.shared.resign();
        this.closeHeads();
      }
    }
    const wantLogs = this.wantsLogs();
    const step = await advance(this.opts.source, cursor, this.recent, wantLogs ? (first, last) => this.allLogs(first, last) : undefined);
    this.failing = false;
    // Unsubscribed by everyone while reading: nothing to deliver, and the feed has stopped.
    if (this.cursor !== cursor) return;
    this.cursor = step.cursor;
    this.recent = wantLogs ? step.recent : step.recent.map(({ n, hash }) => ({ n, hash }));
    await this.deliver(step);
  }

  /**
   * Leads when the lease is free (reading the chain from where the last leader stopped, and publishing), then delivers
   * what was published since the last read, skipping blocks already delivered here (while on its own, or twice).
   */
  private async sharedStep(shared: SharedFollower, cursor: number): Promise<void> {
    const wantLogs = this.wantsLogs();
    const { leading, acquired } = await shared.lead();
    if (acquired) {
      this.lead = (await shared.resume()) ?? { cursor, recent: this.recent };
      this.openHeads();
    } else if (!leading && this.lead) {
      this.lead = undefined;
      this.closeHeads();
    }
    if (leading && this.lead) {
      const logsOf = wantLogs || (await shared.logsWanted()) ? (first: number, last: number) => this.allLogs(first, last) : undefined;
      const step = await advance(this.opts.source, this.lead.cursor, this.lead.recent, logsOf);
      const changed = step.added.length > 0 || step.removed.length > 0;
      if (!changed || (await shared.publish(step))) this.lead = { cursor: step.cursor, recent: step.recent };
      else this.lead = undefined;
    }
    if (wantLogs) await shared.askForLogs();
    for (const { id, batch } of await shared.read(this.streamId)) {
      if (this.cursor === undefined) return;
      this.streamId = id;
      const first = batch.added.length > 0 ? numberOf(batch.added[0]) : undefined;
      if (first !== undefined && batch.removed.length === 0 && first > this.cursor + 1) await this.fill(this.cursor + 1, first - 1, wantLogs);
      await this.deliver(this.unseen(batch));
    }
  }

  /**
   * Delivers blocks the stream skipped, read here: a Redis that restarted empty let a new leader start past what this
   * instance had delivered (while it followed on its own).
   */
  private async fill(from: number, to: number, wantLogs: boolean): Promise<void> {
    while (from <= to) {
      const added = await this.opts.source.blocks(from, Math.min(to, from + MAX_BLOCKS_PER_POLL - 1));
      if (added.length === 0) return;
      const last = numberOf(added.at(-1)!);
      const logs = wantLogs ? await this.allLogs(from, last) : [];
      if (this.cursor !== from - 1) return;
      this.cursor = last;
      await this.deliver({ added, logs, removed: [] });
      from = last + 1;
    }
  }

  /** The part of a published step not yet delivered here; moves the cursor past it. */
  private unseen(batch: Batch): Delivery {
    const before = this.cursor!;
    const removed = batch.removed.filter((b) => b.n <= before);
    const from = removed.length > 0 ? removed[0].n - 1 : before;
    // What this instance checks for a reorganisation should it have to follow the chain on its own.
    if (batch.cursor >= from) this.recent = batch.recent;
    this.cursor = Math.max(from, batch.cursor);
    return { removed, added: batch.added.filter((h) => numberOf(h) > from), logs: batch.logs.filter((l) => numberOf(l) > from) };
  }

  private wantsLogs(): boolean {
    return [...this.subscribers].some((s) => s.kind === 'logs');
  }

  private allLogs(first: number, last: number): Promise<ChainLog[]> {
    return this.opts.source.logs({ address: [], topics: [] }, first, last);
  }

  private async deliver(step: Delivery): Promise<void> {
    const full = await this.withTransactions(step.added);
    step.added.forEach((header, i) => this.deliverHead(this.opts.wholeBlocks ? header : asHead(header), full[i]));
    for (const log of [...removedLogs(step.removed), ...step.logs]) this.deliverLog(log);
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
