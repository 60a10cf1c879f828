/**
 * One follower per network across every instance on one Redis. The instances whose feed runs compete for a lease
 * (SET NX PX, renewed by its holder); the holder reads the chain and appends each step to a Redis stream, and every
 * instance (the holder too) reads that stream and delivers it to its own subscribers. A publish is fenced by the
 * lease token, so a leader that lost its lease unnoticed (paused, partitioned) cannot append; a new leader resumes from
 * the cursor of the newest entry, so nothing is skipped across a hand-over, and readers drop blocks at or below what
 * they already delivered, so nothing is sent twice.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ChainLog } from './criteria.js';
import type { SeenBlock } from './filterStore.js';
import type { BlockHeader } from './source.js';

/** One step of the leader, as readers deliver it. */
export interface Batch {
  /** The lease term that published it (for logs and tests; the fence is the lease token). */
  epoch: number;
  added: BlockHeader[];
  logs: ChainLog[];
  /** Replaced blocks with the logs delivered from them, oldest first. */
  removed: SeenBlock[];
  /** The newest block now published. */
  cursor: number;
  /** The blocks a next leader checks for a reorganisation, hashes only (logs stay in the leader's memory). */
  recent: SeenBlock[];
}

/** Entries kept in a network's stream: far more than a reader falls behind between two of its reads. */
const STREAM_MAX = 1_000;
/** A stream with no leader for this long is dropped, so a feed started later does not resume from a stale block. */
const STREAM_IDLE_MS = 60_000;

/** KEYS: lease, epoch. ARGV: token, lease ms. The new epoch, or 0 when another instance holds the lease. */
const ACQUIRE_LUA = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) end
return 0
`;
/** KEYS: lease, stream. ARGV: token, lease ms, stream idle ms. 1 while the token still holds the lease. */
const RENEW_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`;
/** KEYS: lease, stream. ARGV: token, batch, max entries, stream idle ms. The entry id, or nil when fenced out. */
const PUBLISH_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'b', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return id
`;
/** KEYS: lease. ARGV: token. */
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

interface LeaseCommands {
  gwLiveAcquire(lease: string, epoch: string, token: string, ms: number): Promise<number>;
  gwLiveRenew(lease: string, stream: string, token: string, ms: number, idleMs: number): Promise<number>;
  gwLivePublish(lease: string, stream: string, token: string, batch: string, max: number, idleMs: number): Promise<string | null>;
  gwLiveRelease(lease: string, token: string): Promise<number>;
}
type Client = Redis & LeaseCommands;

/** The gateway's one connection for shared followers; `network` gives each network's. */
export class SharedLive {
  /** Tells this process's terms apart from every other's. */
  private readonly instance = randomUUID();

  private constructor(
    private readonly client: Client,
    private readonly leaseMs: number,
  ) {
    this.client.defineCommand('gwLiveAcquire', { lua: ACQUIRE_LUA, numberOfKeys: 2 });
    this.client.defineCommand('gwLiveRenew', { lua: RENEW_LUA, numberOfKeys: 2 });
    this.client.defineCommand('gwLivePublish', { lua: PUBLISH_LUA, numberOfKeys: 2 });
    this.client.defineCommand('gwLiveRelease', { lua: RELEASE_LUA, numberOfKeys: 1 });
    // Each command's failure reaches the feed, which then follows the chain on its own; the client reconnects.
    this.client.on('error', () => {});
  }

  /** The client library loads here, so a gateway without Redis never holds it. */
  static async open(url: string, leaseMs: number): Promise<SharedLive> {
    const { Redis } = await import('ioredis');
    // Fail fast during an outage (the feed falls back at once); reconnect in the background.
    const client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1_000,
      commandTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    }) as Client;
    return new SharedLive(client, leaseMs);
  }

  network(id: string): SharedFollower {
    return new SharedFollower(this.client, id, this.instance, this.leaseMs);
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** One network's lease and stream, as seen by one instance. */
export class SharedFollower {
  private readonly lease: string;
  private readonly epochKey: string;
  private readonly stream: string;
  private readonly logsKey: string;
  private token?: string;
  private epoch = 0;
  private terms = 0;
  private renewal?: NodeJS.Timeout;

  constructor(
    private readonly client: Client,
    network: string,
    private readonly instance: string,
    private readonly leaseMs: number,
  ) {
    // One hash tag per network: a Redis Cluster keeps its keys on one shard, as the Lua scripts need.
    const tag = `gw:{live:${network}}`;
    this.lease = `${tag}:lease`;
    this.epochKey = `${tag}:epoch`;
    this.stream = `${tag}:stream`;
    this.logsKey = `${tag}:logs`;
  }

  get leading(): boolean {
    return this.token !== undefined;
  }

  /**
   * Whether this instance leads now, taking the lease when nobody holds it. `true` once per term comes with
   * `acquired`, so the caller reloads where the previous leader stopped.
   */
  async lead(): Promise<{ leading: boolean; acquired: boolean }> {
    if (this.token) return { leading: true, acquired: false };
    const token = `${this.instance}:${++this.terms}`;
    const epoch = await this.client.gwLiveAcquire(this.lease, this.epochKey, token, this.leaseMs);
    if (epoch === 0) return { leading: false, acquired: false };
    this.token = token;
    this.epoch = epoch;
    // Renewed three times per lease: one late renewal does not lose it.
    this.renewal = setInterval(() => void this.renew(token), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.renewal.unref();
    return { leading: true, acquired: true };
  }

  /** Where the previous leader stopped: the newest published cursor and its recent blocks. */
  async resume(): Promise<Pick<Batch, 'cursor' | 'recent'> | undefined> {
    const [newest] = await this.client.xrevrange(this.stream, '+', '-', 'COUNT', 1);
    if (!newest) return undefined;
    const { cursor, recent } = parseEntry(newest[1]);
    return { cursor, recent };
  }

  /** Appends a step; false when this instance no longer holds the lease (and then stops leading). */
  async publish(batch: Omit<Batch, 'epoch'>): Promise<boolean> {
    const token = this.token;
    if (!token) return false;
    const body: Batch = { ...batch, epoch: this.epoch, recent: batch.recent.map(({ n, hash }) => ({ n, hash })) };
    const id = await this.client.gwLivePublish(this.lease, this.stream, token, JSON.stringify(body), STREAM_MAX, STREAM_IDLE_MS);
    if (id === null) this.resign(token);
    return id !== null;
  }

  /** The newest entry's id: a new reader starts after it. */
  async tail(): Promise<string> {
    const [newest] = await this.client.xrevrange(this.stream, '+', '-', 'COUNT', 1);
    return newest?.[0] ?? '0-0';
  }

  /** Entries after `after`, oldest first. */
  async read(after: string): Promise<Array<{ id: string; batch: Batch }>> {
    const entries = await this.client.xrange(this.stream, `(${after}`, '+', 'COUNT', 100);
    return entries.map(([id, fields]) => ({ id, batch: parseEntry(fields) }));
  }

  /** Asks the leader, whichever instance it is, to read logs too: some subscriber here wants them. */
  async askForLogs(): Promise<void> {
    await this.client.set(this.logsKey, '1', 'PX', this.leaseMs * 2);
  }

  async logsWanted(): Promise<boolean> {
    return (await this.client.exists(this.logsKey)) === 1;
  }

  /** Hands the lease back at once (the feed stopped), so another instance need not wait for it to expire. */
  release(): void {
    const token = this.token;
    if (!token) return;
    this.resign(token);
    this.client.gwLiveRelease(this.lease, token).catch(() => {});
  }

  /** Forgets the lease without telling Redis (it was lost, or Redis is unreachable and it will expire). */
  resign(token = this.token): void {
    if (!token || token !== this.token) return;
    clearInterval(this.renewal);
    this.renewal = undefined;
    this.token = undefined;
  }

  private async renew(token: string): Promise<void> {
    try {
      if ((await this.client.gwLiveRenew(this.lease, this.stream, token, this.leaseMs, STREAM_IDLE_MS)) !== 1) this.resign(token);
    } catch {
      // Unrenewed, the lease expires and another instance takes over; this one stops publishing (its publish fails too).
      this.resign(token);
    }
  }
}

function parseEntry(fields: string[]): Batch {
  return JSON.parse(fields[fields.indexOf('b') + 1]) as Batch;
}
