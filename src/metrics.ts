import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ERRORS } from './errors.js';
import type { LedgerRelay } from './ledger/relay.js';

/** The one registry every module registers its metrics on. Labels never carry an API key or key id. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });
// prom-client's defaults include gauges named *_total, which `promtool check metrics` rejects; the per-type gauges
// beside them (nodejs_active_handles{type}, ...) carry the same numbers, summed in a query.
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);

/** Buckets from sub-millisecond edge answers to multi-second upstream calls, in seconds. */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const requestsTotal = new Counter({
  name: 'gateway_requests_total',
  help: 'HTTP requests by chain, network, API and outcome',
  labelNames: ['chain', 'network', 'api', 'outcome'] as const,
  registers: [registry],
});

export const requestDuration = new Histogram({
  name: 'gateway_request_duration_seconds',
  help: 'HTTP request duration by chain, network and API',
  labelNames: ['chain', 'network', 'api'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const upstreamRequests = new Counter({
  name: 'gateway_upstream_requests_total',
  help: 'Requests to upstream nodes by network, upstream and outcome',
  labelNames: ['network', 'upstream', 'outcome'] as const,
  registers: [registry],
});

export const upstreamDuration = new Histogram({
  name: 'gateway_upstream_request_duration_seconds',
  help: 'Upstream request duration by network and upstream',
  labelNames: ['network', 'upstream'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** Outcome label of a finished request: ok, client_error, auth, limited, upstream_error, server_error. */
export function outcomeOf(status: number): string {
  if (status < 400) return 'ok';
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'limited';
  if (status === 502 || status === 504) return 'upstream_error';
  return status < 500 ? 'client_error' : 'server_error';
}

export const consensusSubmissions = new Counter({
  name: 'gateway_consensus_submissions_total',
  help: 'Transactions the ledger relay submitted to consensus nodes, by the ledger status they ended with (error when none came back)',
  labelNames: ['status'] as const,
  registers: [registry],
});

export const relayCalls = new Counter({
  name: 'gateway_relay_calls_total',
  help: 'Ledger relay JSON-RPC calls by network, method and outcome (ok or the JSON-RPC error code); unsupported methods count as other',
  labelNames: ['network', 'method', 'outcome'] as const,
  registers: [registry],
});

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
    async handle(calls, ctx) {
      const outcomes = await relay.handle(calls, ctx);
      outcomes.forEach((outcome, i) => {
        const code = 'error' in outcome ? outcome.error.code : undefined;
        const method = code === ERRORS.UNSUPPORTED_METHOD.rpc ? 'other' : calls[i].method;
        relayCalls.inc({ network, method, outcome: code === undefined ? 'ok' : String(code) });
      });
      return outcomes;
    },
    stats: () => relay.stats(),
    async close() {
      relays.delete(network);
      await relay.close();
    },
  };
}
