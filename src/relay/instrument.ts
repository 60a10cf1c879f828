/**
 * The ledger relays' metrics: each call counted by network, method and outcome, and each relay's read-cache and
 * mirror-client counts read at scrape time.
 */
import { Counter, Gauge } from 'prom-client';
import { ERRORS } from '../errors.js';
import { HotCounter } from '../hotMetrics.js';
import { registry } from '../metrics.js';
import type { LedgerRelay } from './ledgerRelay.js';

/** Counted without prom-client's label check and hash on every call, a share of a cached answer's whole cost. */
const relayCalls = new HotCounter(
  'gateway_relay_calls_total',
  'Ledger relay JSON-RPC calls by network, method and outcome (ok or the JSON-RPC error code); unsupported methods count as other',
  ['network', 'method', 'outcome'],
  registry,
);

/** Relays whose own cache and mirror-client counts are read at scrape time, by network id. */
const relays = new Map<string, LedgerRelay>();

new Counter({
  name: 'gateway_relay_cache_requests_total',
  help: 'Ledger relay read-cache lookups by network and result: hit, miss, coalesced (joined a load already in flight)',
  labelNames: ['network', 'result'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [network, relay] of relays) {
      const { hits, misses, coalesced } = relay.stats().cache;
      this.inc({ network, result: 'hit' }, hits);
      this.inc({ network, result: 'miss' }, misses);
      this.inc({ network, result: 'coalesced' }, coalesced);
    }
  },
});

new Counter({
  name: 'gateway_relay_shared_cache_requests_total',
  help: "Final answers this instance missed and looked up in the instances' shared cache (limits.redisUrl), by network and result: hit, miss, waited (loaded by another instance meanwhile), stored, skipped (over relay.sharedCacheMaxEntryBytes or the byte bound), fault (Redis failed; loaded locally)",
  labelNames: ['network', 'result'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [network, relay] of relays) {
      const shared = relay.stats().cache.shared;
      if (!shared) continue;
      for (const [result, count] of Object.entries({ hit: shared.hits, miss: shared.misses, waited: shared.waited, stored: shared.stored, skipped: shared.skipped, fault: shared.faults })) {
        this.inc({ network, result }, count);
      }
    }
  },
});

new Gauge({
  name: 'gateway_relay_cache_bytes',
  help: 'Bytes held by the ledger relay read cache, by network; bounded by relay.cacheBytes',
  labelNames: ['network'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [network, relay] of relays) this.set({ network }, relay.stats().cache.bytes);
  },
});

new Counter({
  name: 'gateway_relay_mirror_requests_total',
  help: 'Ledger relay mirror-node client by network and kind: attempt (each HTTP request), retry, failure (a lookup that gave up), coalesced (a GET that joined one in flight)',
  labelNames: ['network', 'kind'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [network, relay] of relays) {
      const { requests, retries, failures, coalesced } = relay.stats().mirror;
      this.inc({ network, kind: 'attempt' }, requests);
      this.inc({ network, kind: 'retry' }, retries);
      this.inc({ network, kind: 'failure' }, failures);
      this.inc({ network, kind: 'coalesced' }, coalesced);
    }
  },
});

/**
 * The relay of one network, answering exactly as before, with each call counted by method and outcome and its cache
 * and mirror counts exported. Methods the relay does not support are labelled `other`, so callers cannot grow the
 * label set.
 */
export function instrumentRelay(network: string, relay: LedgerRelay): LedgerRelay {
  relays.set(network, relay);
  return {
    // Not an async function: the relay's promise with the counting chained on, without a layer of its own.
    handle(calls, ctx) {
      return relay.handle(calls, ctx).then((outcomes) => {
        for (let i = 0; i < outcomes.length; i++) {
          const outcome = outcomes[i];
          const code = 'error' in outcome ? outcome.error.code : undefined;
          const method = code === ERRORS.UNSUPPORTED_METHOD.rpc ? 'other' : calls[i].method;
          relayCalls.child(network, method, code === undefined ? 'ok' : String(code)).inc();
        }
        return outcomes;
      });
    },
    logAddresses: (addresses) => relay.logAddresses(addresses),
    stats: () => relay.stats(),
    async close() {
      relays.delete(network);
      await relay.close();
    },
  };
}
