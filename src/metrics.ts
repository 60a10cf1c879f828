import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { HotCounter, HotHistogram, type CounterSeries, type HistogramSeries } from './hotMetrics.js';

/** The one registry every module registers its metrics on. Labels never carry an API key or key id. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });
// prom-client's defaults include gauges named *_total, which `promtool check metrics` rejects; the per-type gauges
// beside them (nodejs_active_handles{type}, ...) carry the same numbers, summed in a query.
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);

/** Buckets from sub-millisecond edge answers to multi-second upstream calls, in seconds. */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const requestsTotal = new HotCounter('gateway_requests_total', 'HTTP requests by chain, network, API and outcome', ['chain', 'network', 'api', 'outcome'], registry);

const requestDuration = new HotHistogram('gateway_request_duration_seconds', 'HTTP request duration by chain, network and API', ['chain', 'network', 'api'], LATENCY_BUCKETS, registry);

const upstreamRequests = new HotCounter('gateway_upstream_requests_total', 'Requests to upstream nodes by network, upstream and outcome', ['network', 'upstream', 'outcome'], registry);

const upstreamDuration = new HotHistogram('gateway_upstream_request_duration_seconds', 'Upstream request duration by network and upstream', ['network', 'upstream'], LATENCY_BUCKETS, registry);

/**
 * One upstream's series (an EVM node's label, `mirror`, `graphql`, ...), each found once and then held: recording a
 * request looks up no labels.
 */
export class UpstreamSeries {
  private duration?: HistogramSeries;
  private readonly outcomes = new Map<string, CounterSeries>();

  constructor(readonly labels: { network: string; upstream: string }) {}

  /** One request that took `seconds` and ended as `outcome` (an HTTP status, ok, timeout, error, ...). */
  record(seconds: number, outcome: string): void {
    const { network, upstream } = this.labels;
    (this.duration ??= upstreamDuration.child(network, upstream)).observe(seconds);
    let count = this.outcomes.get(outcome);
    if (!count) this.outcomes.set(outcome, (count = upstreamRequests.child(network, upstream, outcome)));
    count.inc();
  }
}

/** One request to an upstream whose labels come with the request (the REST and GraphQL passthrough). */
export function recordUpstream(labels: { network: string; upstream: string }, seconds: number, outcome: string): void {
  new UpstreamSeries(labels).record(seconds, outcome);
}

export const upstreamChainMismatch = new Counter({
  name: 'gateway_upstream_chain_mismatch_total',
  help: 'EVM upstreams refused because eth_chainId named another chain than the network is configured with',
  labelNames: ['network', 'upstream'] as const,
  registers: [registry],
});

export const upstreamInRotation = new Gauge({
  name: 'gateway_upstream_in_rotation',
  help: 'Whether an EVM upstream serves first (1) or only as a last resort (0: lagging, failing or another chain)',
  labelNames: ['network', 'upstream'] as const,
  registers: [registry],
});

export const upstreamHedges = new Counter({
  name: 'gateway_upstream_hedged_requests_total',
  help: 'EVM reads also sent to a second upstream because the first was slower than its usual latency',
  labelNames: ['network'] as const,
  registers: [registry],
});

/** One finished request in `gateway_request_duration_seconds` and `gateway_requests_total`. */
export function observeRequest(chain: string, network: string, api: string, status: number, seconds: number): void {
  requestDuration.child(chain, network, api).observe(seconds);
  requestsTotal.child(chain, network, api, outcomeOf(status)).inc();
}

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

// Live data: filters, JSON-RPC WebSockets and eth_subscribe.

export const filtersCreated = new Counter({
  name: 'gateway_filters_created_total',
  help: 'JSON-RPC filters installed, by network and kind (logs, blocks, pending)',
  labelNames: ['network', 'kind'] as const,
  registers: [registry],
});

export const filterPolls = new Counter({
  name: 'gateway_filter_polls_total',
  help: 'eth_getFilterChanges answered, by network and kind',
  labelNames: ['network', 'kind'] as const,
  registers: [registry],
});

/** Filter counts read at scrape time; only a memory store knows one (on Redis every instance adds to the same set). */
const filterCounts = new Set<() => number | undefined>();

new Gauge({
  name: 'gateway_filters',
  help: 'JSON-RPC filters held in this instance\'s memory (absent when filters live in Redis)',
  registers: [registry],
  collect() {
    this.reset();
    let total: number | undefined;
    for (const count of filterCounts) {
      const n = count();
      if (n !== undefined) total = (total ?? 0) + n;
    }
    if (total !== undefined) this.set(total);
  },
});

export function trackFilters(count: () => number | undefined): () => void {
  filterCounts.add(count);
  return () => filterCounts.delete(count);
}

export const rpcSockets = new Gauge({
  name: 'gateway_rpc_websockets',
  help: 'JSON-RPC WebSockets open on /rpc, by network',
  labelNames: ['network'] as const,
  registers: [registry],
});

export const rpcSubscriptions = new Gauge({
  name: 'gateway_rpc_subscriptions',
  help: 'eth_subscribe subscriptions running, by network and type (newHeads, logs, newPendingTransactions)',
  labelNames: ['network', 'type'] as const,
  registers: [registry],
});

export const rpcNotifications = new Counter({
  name: 'gateway_rpc_notifications_total',
  help: 'eth_subscription notifications sent, by network and type',
  labelNames: ['network', 'type'] as const,
  registers: [registry],
});

export const rpcSocketsClosed = new Counter({
  name: 'gateway_rpc_websocket_closes_total',
  help: 'JSON-RPC WebSockets closed by the gateway, by reason: slow_reader (send buffer over server.wsMaxBufferedBytes), no_pong, idle, quota, plan (a downgrade lowered the key\'s maxSockets below its open sockets: the newest close; closes made by the edge, for revocation or shutdown, are not counted here)',
  labelNames: ['reason'] as const,
  registers: [registry],
});

// Hbar spending limits (the operator's fees for ledger writes). Labels name plans, never keys.

export const hbarSpent = new Counter({
  name: 'gateway_hbar_spent_tinybar_total',
  help: 'Tinybar the operator paid for ledger writes (each write settled to its records), by network and the key\'s plan (none: no key)',
  labelNames: ['network', 'plan'] as const,
  registers: [registry],
});

export const hbarRefusals = new Counter({
  name: 'gateway_hbar_refusals_total',
  help: 'Ledger writes refused before submission because their largest possible fee did not fit a budget: operator, plan or key',
  labelNames: ['network', 'budget'] as const,
  registers: [registry],
});

/** The operator budget of each ledger network this instance has written to: its size, and what is left this window. */
export interface OperatorBudget {
  network: string;
  limitTinybar: number;
  remainingTinybar: number;
}

const operatorBudgets = new Set<() => Promise<OperatorBudget[]>>();

async function readOperatorBudgets(): Promise<OperatorBudget[]> {
  return (await Promise.all([...operatorBudgets].map((read) => read().catch(() => [])))).flat();
}

new Gauge({
  name: 'gateway_hbar_operator_remaining_tinybar',
  help: 'Tinybar left in the operator budget of a ledger network this window (settled spend from the key store, so every instance reports the same)',
  labelNames: ['network'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const b of await readOperatorBudgets()) this.set({ network: b.network }, b.remainingTinybar);
  },
});

new Gauge({
  name: 'gateway_hbar_operator_budget_tinybar',
  help: 'Size of the operator budget of a ledger network per window (hbarLimits.operatorTinybar)',
  labelNames: ['network'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const b of await readOperatorBudgets()) this.set({ network: b.network }, b.limitTinybar);
  },
});

export function trackOperatorBudgets(read: () => Promise<OperatorBudget[]>): () => void {
  operatorBudgets.add(read);
  return () => operatorBudgets.delete(read);
}
