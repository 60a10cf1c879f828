import { LRUCache } from 'lru-cache';

/**
 * An LRU cache of at most `max` entries whose storage grows as entries arrive. Given `max`, lru-cache allocates its
 * slot arrays for all of them up front: 2.8 MB for 100,000 entries, held from start even while the cache is empty (four
 * such caches were 11 MB of an idle gateway's 26 MB heap). Counting each entry as 1 against `maxSize` bounds the count
 * the same way. With `expiry`, an entry not set again for `ttlMs` of the `now` clock is gone.
 */
export function lruOf<K extends {}, V extends {}>(max: number, expiry?: { ttlMs: number; now: () => number }): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: max, sizeCalculation: () => 1, ...(expiry && { ttl: expiry.ttlMs, perf: { now: expiry.now } }) });
}
