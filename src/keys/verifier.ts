import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import { lruOf } from '../lru.js';
import { hashesEqual, hashKey, MAX_KEY_LENGTH } from './format.js';
import type { KeyStore, StoredKey } from './store.js';
import type { KeyVerifier, VerifiedKey } from './types.js';

interface Entry {
  key: VerifiedKey | null;
  /** When the store query that produced this entry started: the revocation bound counts from there. */
  fetchedAt: number;
}

/**
 * Verifies keys from memory on the hot path. A verified key is trusted for `cacheTtlMs` counted from the start of the
 * store query that found it, so a revocation takes effect within that bound on every instance; a hot key is
 * re-read in the background after half that time so its callers never wait for the store. Unknown keys are
 * remembered for `negativeTtlMs` in a separate cache, so a flood of bad keys neither reaches the store nor evicts
 * good keys. Concurrent look-ups of one key share one store query. Entries are keyed by the key's hash: the raw
 * key is never kept.
 */
export function createKeyVerifier(store: Pick<KeyStore, 'findByHash'>, opts: Config['keys'], plans: Config['plans']): KeyVerifier {
  const known = lruOf<string, Entry>(opts.cacheMax);
  const unknown = lruOf<string, Entry>(opts.cacheMax);
  const inFlight = new Map<string, Promise<Entry>>();

  function toVerified(stored: StoredKey): VerifiedKey {
    const plan = plans[stored.plan];
    if (!plan) throw new GatewayError('INTERNAL', `key ${stored.id} has plan "${stored.plan}", which is not configured`);
    return {
      id: stored.id,
      accountId: stored.accountId,
      name: stored.name,
      planName: stored.plan,
      plan,
      network: stored.network,
      relayBeta: stored.flags.includes('relay_beta'),
      heavyWrites: stored.flags.includes('heavy_writes'),
      ...(stored.hbarLimitTinybar === null ? {} : { hbarLimitTinybar: stored.hbarLimitTinybar }),
    };
  }

  async function load(hash: string): Promise<Entry> {
    const fetchedAt = performance.now();
    const stored = await store.findByHash(hash);
    const valid = stored && stored.revokedAt === null && hashesEqual(stored.hash, hash);
    const entry = { key: valid ? toVerified(stored) : null, fetchedAt };
    if (entry.key) {
      known.set(hash, entry);
      unknown.delete(hash);
    } else {
      unknown.set(hash, entry);
      known.delete(hash);
    }
    return entry;
  }

  function refresh(hash: string): Promise<Entry> {
    let pending = inFlight.get(hash);
    if (!pending) {
      pending = load(hash).finally(() => inFlight.delete(hash));
      inFlight.set(hash, pending);
    }
    return pending;
  }

  return {
    forget(keyIds: string[]): void {
      // Rare (an operator's change), so a scan of the cache is fine.
      const ids = new Set(keyIds);
      for (const [hash, entry] of known.entries()) if (entry.key && ids.has(entry.key.id)) known.delete(hash);
    },
    // Not an async function: a cached key, nearly every request's, is answered without a promise to wait on.
    verify(rawKey: string): VerifiedKey | null | Promise<VerifiedKey | null> {
      if (rawKey.length === 0 || rawKey.length > MAX_KEY_LENGTH) return null;
      const hash = hashKey(rawKey);
      const now = performance.now();
      const good = known.get(hash);
      if (good && now - good.fetchedAt < opts.cacheTtlMs) {
        // Background errors are ignored here: if the store stays down, the entry expires and the caller sees it.
        if (now - good.fetchedAt > opts.cacheTtlMs / 2) refresh(hash).catch(() => {});
        return good.key;
      }
      const bad = unknown.get(hash);
      if (bad && now - bad.fetchedAt < opts.negativeTtlMs) return null;
      return refresh(hash).then((entry) => entry.key);
    },
  };
}
