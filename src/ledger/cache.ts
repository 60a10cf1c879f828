/**
 * The relay's read cache. Ledger blocks are final as soon as the mirror node has them, so blocks, transactions and
 * receipts, once found, are kept (LRU, bounded by bytes). Answers about the chain head (`latest`) are kept only
 * for a short time. Identical loads in flight share one promise.
 */
import { LRUCache } from 'lru-cache';
import { RawJson } from '../rpc/jsonrpc.js';
import type { SharedCache, SharedCacheStats } from './sharedCache.js';

export interface CacheStats {
  hits: number;
  misses: number;
  coalesced: number;
  entries: number;
  bytes: number;
  /** The texts shared with other instances, when on Redis. */
  shared?: SharedCacheStats;
}

/**
 * What one entry costs beyond its key and value: the LRU's slot, its key map entry and the entry object (measured on
 * Node 20: about 300 bytes). Without it a cache of small values (EVM addresses, short answers) held four to six times
 * its byte bound.
 */
const ENTRY_BYTES = 320;

/**
 * The length of a value's JSON text, estimated by a walk that counts every number as 8 characters: writing the text
 * (with a replacer for bigints) cost every kept block about 25 times as much, on the path of every cold request.
 */
function jsonChars(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return 8;
  let n = 2;
  if (Array.isArray(value)) for (const item of value) n += jsonChars(item) + 1;
  else for (const key in value) n += key.length + 4 + jsonChars((value as Record<string, unknown>)[key]);
  return n;
}

/** Rough in-memory size: UTF-16 JSON text, which tracks the real footprint closely enough to bound it. */
const sizeOf = (value: unknown) => jsonChars(value) * 2;

/** Kept text and keys are one byte per character in V8 (JSON of ledger data is ASCII). */
const entryBytes = (entry: { value: unknown }, key: string) => ENTRY_BYTES + key.length + (entry.value instanceof RawJson ? entry.value.text.length : sizeOf(entry.value));

export class ReadCache {
  private readonly lru: LRUCache<string, { value: unknown }>;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly counts = { hits: 0, misses: 0, coalesced: 0 };

  /** `shared`: final answer texts this instance misses are looked up in, and loaded through, the instances' shared cache. */
  constructor(
    maxBytes: number,
    private readonly shared?: SharedCache,
  ) {
    this.lru = new LRUCache({ maxSize: maxBytes, sizeCalculation: entryBytes });
  }

  /** A value that never changes once it exists: kept until evicted. Null (not found yet) is not kept. */
  final<T>(key: string, load: () => Promise<T>): Promise<T> {
    return this.through(key, load, (v) => (v === null || v === undefined ? undefined : 0));
  }

  /**
   * A final record that every instance's answers are built from (a block): on Redis it is shared as JSON text, so that
   * N instances reading the same block ahead of an answer make one mirror request, not N.
   */
  finalRecord<T>(key: string, load: () => Promise<T | null>): Promise<T | null> {
    const shared = this.shared;
    if (!shared) return this.final(key, load);
    return this.final(key, async () => {
      const text = await shared.text(key, async () => {
        const value = await load();
        return value === null || value === undefined ? null : JSON.stringify(value);
      });
      return text === null ? null : (JSON.parse(text) as T);
    });
  }

  /** The JSON text of a final answer, kept while `load` gives text (null, not found yet, is not kept). */
  finalText(key: string, load: () => Promise<string | null>): Promise<RawJson | null> {
    return this.final<RawJson | null>(key, async () => {
      const text = await (this.shared ? this.shared.text(key, load) : load());
      return text === null ? null : new RawJson(text);
    });
  }

  /** The kept text of a final answer, without waiting: the path of almost every repeated request. */
  peekText(key: string): RawJson | undefined {
    const hit = this.lru.get(key);
    if (!(hit?.value instanceof RawJson)) return undefined;
    this.counts.hits++;
    return hit.value;
  }

  /** A value about the chain head: kept for `ttlMs` (0 keeps nothing, but loads in flight are still shared). */
  fresh<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
    return this.through(key, load, () => (ttlMs > 0 ? ttlMs : undefined));
  }

  /** Whether a value is kept, without counting a hit: for deciding whether to read ahead. */
  has(key: string): boolean {
    return this.lru.has(key);
  }

  /** Stores a value learned another way (a block found by hash is also the block of its number). */
  put(key: string, value: unknown): void {
    if (value !== null && value !== undefined) this.lru.set(key, { value });
  }

  stats(): CacheStats {
    return { ...this.counts, entries: this.lru.size, bytes: this.lru.calculatedSize, ...(this.shared && { shared: this.shared.stats() }) };
  }

  /** `ttlOf` says how long to keep a loaded value: 0 forever, a number of ms, undefined not at all. */
  private through<T>(key: string, load: () => Promise<T>, ttlOf: (v: T) => number | undefined): Promise<T> {
    const hit = this.lru.get(key);
    if (hit) {
      this.counts.hits++;
      return Promise.resolve(hit.value as T);
    }
    const pending = this.inFlight.get(key);
    if (pending) {
      this.counts.coalesced++;
      return pending as Promise<T>;
    }
    this.counts.misses++;
    const promise = load()
      .then((value) => {
        const ttl = ttlOf(value);
        if (ttl !== undefined) this.lru.set(key, { value }, ttl > 0 ? { ttl } : {});
        return value;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }
}
