/**
 * Final answer texts shared by every instance on one Redis, behind each instance's own read cache. A miss takes a
 * short per-key lock (SET NX PX) and loads from the mirror node; an instance missing the same key meanwhile waits for
 * the text to appear instead of asking the mirror node too, and loads itself only when the lock goes without a text
 * (the answer was not found, or its loader failed) or the wait runs out. Any Redis fault answers as a miss that loads
 * at once: a shared cache saves mirror requests, it never fails one.
 *
 * The byte bound is kept by the gateway, not by Redis's maxmemory, since that Redis also holds the limiter's budgets,
 * which an eviction policy must not touch. Every text lives `ttlMs` and is counted, on store, in a counter for the
 * window of `ttlMs` it was stored in. A text stored in one window has expired by the end of the next, so the texts
 * alive at any moment are at most those counted in this window and the one before it; a store that would take those
 * two past the bound is skipped. The bound is thereby exact for what is counted (text, key and a per-entry overhead),
 * needs no scan and no decrement, and costs nothing on a hit. The price: once a window's budget is spent, new texts
 * wait for the next window (at most `ttlMs`) rather than evicting old ones, which each instance's LRU in front covers.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { failFastRedis, firstAttempt } from '../limits/failFastRedis.js';

export interface SharedCacheOptions {
  /** Bound on the texts this network keeps in Redis, counted as text, key and ENTRY_OVERHEAD. */
  bytes: number;
  /** How long a text lives in Redis. */
  ttlMs: number;
  /** A text larger than this is not shared (each instance keeps it locally). */
  maxEntryBytes: number;
}

export interface SharedCacheStats {
  hits: number;
  misses: number;
  /** Misses answered by another instance's load. */
  waited: number;
  stored: number;
  /** Texts not stored: over the entry size or the byte bound. */
  skipped: number;
  /** Redis commands that failed, each answered by loading locally. */
  faults: number;
}

/** Redis's own cost of a small string key with a TTL (dict entry, key and value objects, expiry entry), rounded up. */
const ENTRY_OVERHEAD = 96;
/**
 * How long the first loader holds a key, and how long the others wait for its text: a final answer is a few mirror
 * requests, well under this; a loader that takes longer only costs the waiters their own load.
 */
const LOCK_MS = 2_000;
/**
 * A waiting instance looks for the text after FIRST_POLL_MS, then ever less often up to every POLL_MS: a nearby mirror
 * node answers in a few milliseconds, a distant one in tens (a fixed 15 ms poll cut the bench's relay mix to a quarter
 * of its throughput against a local mirror stub).
 */
const FIRST_POLL_MS = 2;
const POLL_MS = 16;

/**
 * KEYS: text, lock, this window's counter, the previous window's counter. ARGV: token, text, ttl ms, bytes, bound.
 * Stores the text when the two windows have room for it, and releases the lock if it is still the caller's.
 * 1 when stored, 0 when the bound left no room.
 */
const STORE_LUA = `
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
local used = tonumber(redis.call('GET', KEYS[3]) or '0') + tonumber(redis.call('GET', KEYS[4]) or '0')
if used + tonumber(ARGV[4]) > tonumber(ARGV[5]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('INCRBY', KEYS[3], ARGV[4])
redis.call('PEXPIRE', KEYS[3], 2 * tonumber(ARGV[3]))
return 1
`;
/** KEYS: lock. ARGV: token. Releases a lock still held by the caller, so waiters load at once. */
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

interface CacheCommands {
  gwCacheStore(text: string, lock: string, window: string, previous: string, token: string, value: string, ttlMs: number, bytes: number, bound: number): Promise<number>;
  gwCacheRelease(lock: string, token: string): Promise<number>;
}
type Client = Redis & CacheCommands;

/** The gateway's one connection for shared answer texts; `network` gives each network's cache. */
export class SharedCaches {
  private constructor(
    private readonly client: Client,
    private readonly opts: SharedCacheOptions,
  ) {
    this.client.defineCommand('gwCacheStore', { lua: STORE_LUA, numberOfKeys: 4 });
    this.client.defineCommand('gwCacheRelease', { lua: RELEASE_LUA, numberOfKeys: 1 });
    // Each command's failure is answered where it is made; the client reconnects on its own.
    this.client.on('error', () => {});
  }

  static async open(url: string, opts: SharedCacheOptions): Promise<SharedCaches> {
    const client = await failFastRedis<CacheCommands>(url);
    const caches = new SharedCaches(client, opts);
    // Connected before the first request when Redis is up; loading locally meanwhile when it is not.
    await firstAttempt(client);
    return caches;
  }

  /**
   * `source` names the ledger the answers come from (its mirror node's URL): a sandbox restarted, or one per instance
   * as in the offline compose file, is another chain under the same network id, whose block 1 is not this one's.
   */
  network(id: string, source: string): SharedCache {
    return new SharedCache(this.client, id, source, this.opts);
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** One network's shared answer texts. */
export class SharedCache {
  private readonly tag: string;
  private readonly counts: SharedCacheStats = { hits: 0, misses: 0, waited: 0, stored: 0, skipped: 0, faults: 0 };

  constructor(
    private readonly client: Client,
    readonly network: string,
    private readonly source: string,
    private readonly opts: SharedCacheOptions,
  ) {
    // One hash tag per network: a Redis Cluster keeps its keys on one shard, as the store script needs.
    this.tag = `gw:{cache:${network}}`;
  }

  stats(): SharedCacheStats {
    return { ...this.counts };
  }

  /** The text kept under `key` by any instance, or `load`'s (then shared when not null). */
  async text(key: string, load: () => Promise<string | null>): Promise<string | null> {
    // Answer keys hold a call's params (a getLogs filter may name many addresses): a digest keeps Redis keys short.
    const id = `${this.tag}:${createHash('sha256').update(this.source).update('\n').update(key).digest('base64url')}`;
    const lock = `${id}:lock`;
    const token = randomUUID();
    let locked: boolean;
    try {
      const found = await this.client.get(id);
      if (found !== null) {
        this.counts.hits++;
        return found;
      }
      // The text may have landed since the read: the lock is taken only while there is still none.
      const [[, took], [, landed]] = (await this.client.multi().set(lock, token, 'PX', LOCK_MS, 'NX').get(id).exec()) as [[null, 'OK' | null], [null, string | null]];
      if (landed !== null) {
        if (took) await this.release(lock, token);
        this.counts.hits++;
        return landed;
      }
      locked = took === 'OK';
    } catch {
      this.counts.faults++;
      return load();
    }
    this.counts.misses++;
    if (!locked) {
      const text = await this.waitFor(id, lock);
      if (text !== null) {
        this.counts.waited++;
        return text;
      }
      return load();
    }
    let text: string | null;
    try {
      text = await load();
    } catch (err) {
      await this.release(lock, token);
      throw err;
    }
    // Not found (or too large to share): the lock goes at once, so the waiters load for themselves now.
    if (text === null || text.length > this.opts.maxEntryBytes) {
      if (text !== null) this.counts.skipped++;
      await this.release(lock, token);
    } else await this.store(id, lock, token, text);
    return text;
  }

  /** The text another instance is loading, or null once its lock is gone without one, the wait ran out or Redis failed. */
  private async waitFor(id: string, lock: string): Promise<string | null> {
    const until = Date.now() + LOCK_MS;
    try {
      for (let delay = FIRST_POLL_MS; Date.now() < until; delay = Math.min(2 * delay, POLL_MS)) {
        await new Promise((r) => setTimeout(r, delay));
        const [[, text], [, held]] = (await this.client.multi().get(id).exists(lock).exec()) as [[null, string | null], [null, number]];
        if (text !== null || held === 0) return text;
      }
    } catch {
      this.counts.faults++;
    }
    return null;
  }

  private async store(id: string, lock: string, token: string, text: string): Promise<void> {
    const { ttlMs, bytes: bound } = this.opts;
    // Ledger JSON is ASCII: a character is a byte in Redis.
    const bytes = text.length + id.length + ENTRY_OVERHEAD;
    // Each instance's clock picks the window; a skew of seconds against a TTL of minutes moves the bound by as little.
    const window = Math.floor(Date.now() / ttlMs);
    try {
      const stored = await this.client.gwCacheStore(id, lock, `${this.tag}:bytes:${window}`, `${this.tag}:bytes:${window - 1}`, token, text, ttlMs, bytes, bound);
      if (stored === 1) this.counts.stored++;
      else this.counts.skipped++;
    } catch {
      this.counts.faults++;
    }
  }

  private async release(lock: string, token: string): Promise<void> {
    await this.client.gwCacheRelease(lock, token).catch(() => this.counts.faults++);
  }
}
