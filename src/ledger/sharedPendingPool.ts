/**
 * The pending pool (txpool_*) shared by every instance on one Redis: a submission made through one instance shows in
 * every instance's txpool until its consensus receipt comes back. One sorted set per network, scored by when each
 * entry expires, so an entry whose instance died mid-submission (and never removed it) goes after `ttlMs`; bounded in
 * entries and in bytes, the soonest to expire dropped first to make room.
 *
 * Each instance also keeps its own submissions in a local pool: a Redis fault loses only the other instances'
 * entries, never this one's, and never fails a submission or a txpool call.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { failFastRedis, firstAttempt } from '../limits/failFastRedis.js';
import { ScriptBatch } from '../limits/scriptBatch.js';
import { LocalPendingPool, type PendingPool } from './pendingPool.js';
import type { PendingNonces, SenderLocks } from './senderOrder.js';
import { SharedPendingNonces, SharedSenderLocks, withSenderCommands } from './sharedSenders.js';

export interface SharedPendingPoolOptions {
  /** An entry not removed by then (its instance died mid-submission) is dropped: past the longest submission. */
  ttlMs: number;
  maxEntries: number;
  /** Counted as the envelope's hex and its sender. */
  maxBytes: number;
}

/**
 * A submission takes one consensus request (30 s at most) and its receipt, or a few with the file service; two
 * minutes is past any of them. 16 MB holds over a hundred of the largest envelopes, and thousands of common ones.
 */
export const POOL_DEFAULTS: SharedPendingPoolOptions = { ttlMs: 120_000, maxEntries: 10_000, maxBytes: 16 * 1024 * 1024 };

/**
 * KEYS: the set, its byte count. ARGV: op (1 add, 0 remove), member, now, expiry (ms), ttl ms, max entries, max bytes.
 * Adding drops expired entries first, then the soonest to expire while the bounds leave no room; an entry larger than
 * the byte bound is not kept (1 when added, 0 when not).
 */
const POOL_FN = `function(keys, argv)
  local member, now = argv[2], tonumber(argv[3])
  if argv[1] == '0' then
    if redis.call('ZREM', keys[1], member) == 1 then redis.call('DECRBY', keys[2], #member) end
    return 1
  end
  local maxEntries, maxBytes = tonumber(argv[6]), tonumber(argv[7])
  if #member > maxBytes then return 0 end
  local bytes = tonumber(redis.call('GET', keys[2]) or '0')
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', keys[1], '-inf', now)) do bytes = bytes - #gone end
  redis.call('ZREMRANGEBYSCORE', keys[1], '-inf', now)
  if redis.call('ZSCORE', keys[1], member) then
    redis.call('ZADD', keys[1], argv[4], member)
  else
    while redis.call('ZCARD', keys[1]) >= maxEntries or bytes + #member > maxBytes do
      local popped = redis.call('ZPOPMIN', keys[1])
      if #popped == 0 then break end
      bytes = bytes - #popped[1]
    end
    redis.call('ZADD', keys[1], argv[4], member)
    bytes = bytes + #member
  end
  redis.call('SET', keys[2], math.max(0, bytes), 'PX', argv[5])
  redis.call('PEXPIRE', keys[1], argv[5])
  return 1
end`;

/**
 * The gateway's one connection for what ledger submissions share across instances: each network's pending pool and
 * its senders' turns and pending nonces (sharedSenders.ts).
 */
export class SharedSubmissions {
  private readonly batch: ScriptBatch<number>;
  private readonly client: ReturnType<typeof withSenderCommands>;

  private constructor(
    client: Redis,
    private readonly opts: SharedPendingPoolOptions,
  ) {
    this.client = withSenderCommands(client);
    this.batch = new ScriptBatch<number>(client, 'pendingPool', POOL_FN);
    // Each command's failure is answered where it is made; the client reconnects on its own.
    this.client.on('error', () => {});
  }

  static async open(url: string, opts: SharedPendingPoolOptions = POOL_DEFAULTS): Promise<SharedSubmissions> {
    const client = await failFastRedis(url);
    await firstAttempt(client);
    return new SharedSubmissions(client, opts);
  }

  /** `source` names the ledger (its mirror node's URL), as for the shared cache: one sandbox per instance is one chain each. */
  pool(network: string, source: string): PendingPool {
    return new SharedPendingPool(this.client, this.batch, tagOf('pool', network, source), this.opts);
  }

  senders(network: string, source: string): { locks: SenderLocks; pending: PendingNonces } {
    // A hash tag per sender: its lock and nonces are independent keys, on any shard of a Redis Cluster.
    const keyOf = (what: string) => (sender: string) => `${tagOf('sender', network, source, sender.toLowerCase())}:${what}`;
    return { locks: new SharedSenderLocks(this.client, keyOf('turn')), pending: new SharedPendingNonces(this.client, keyOf('nonces')) };
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** A hash tag naming the network and its ledger, and `more`; a Redis Cluster keeps the keys under one tag on one shard. */
function tagOf(kind: string, network: string, source: string, ...more: string[]): string {
  return `gw:{${[kind, network, createHash('sha256').update(source).digest('base64url').slice(0, 16), ...more].join(':')}}`;
}

class SharedPendingPool implements PendingPool {
  private readonly local = new LocalPendingPool();
  private readonly keys: string[];

  constructor(
    private readonly client: Redis,
    private readonly batch: ScriptBatch<number>,
    /** One tag for the network's set and its byte count, as the script needs. */
    tag: string,
    private readonly opts: SharedPendingPoolOptions,
  ) {
    this.keys = [`${tag}:txs`, `${tag}:bytes`];
  }

  async add(sender: string, raw: string): Promise<void> {
    await this.local.add(sender, raw);
    const now = Date.now();
    const { ttlMs, maxEntries, maxBytes } = this.opts;
    await this.batch.call(this.keys, [1, memberOf(sender, raw), now, now + ttlMs, ttlMs, maxEntries, maxBytes]).catch(() => undefined);
  }

  async remove(sender: string, raw: string): Promise<void> {
    await this.local.remove(sender, raw);
    await this.batch.call(this.keys, [0, memberOf(sender, raw), Date.now(), 0, 0, 0, 0]).catch(() => undefined);
  }

  async all(): Promise<string[]> {
    return [...new Set([...(await this.shared()).map((m) => m.slice(m.indexOf(' ') + 1)), ...(await this.local.all())])];
  }

  async from(sender: string): Promise<string[]> {
    const prefix = `${sender.toLowerCase()} `;
    const shared = (await this.shared()).filter((m) => m.startsWith(prefix)).map((m) => m.slice(prefix.length));
    return [...new Set([...shared, ...(await this.local.from(sender))])];
  }

  /** Every unexpired entry in Redis; none when Redis fails (the local pool answers alone). */
  private async shared(): Promise<string[]> {
    try {
      return await this.client.zrangebyscore(this.keys[0], `(${Date.now()}`, '+inf');
    } catch {
      return [];
    }
  }
}

/** An envelope is hex, so the first space ends the sender. */
function memberOf(sender: string, raw: string): string {
  return `${sender.toLowerCase()} ${raw}`;
}
