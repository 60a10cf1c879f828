/**
 * The ledger chain's JSON-RPC backend: answers `eth_*` calls in-process from the mirror node (reads) and consensus
 * nodes (writes). One relay per ledger network; calls of a batch run concurrently.
 *
 * This is the relay's wiring, above everything it wires: requests flow one way, from here to the method modules
 * (src/methods/) and from them to the ledger's mirror client, conversions and caches (src/ledger/), never back.
 */
import type { Logger } from 'pino';
import type { Config, LedgerConfig } from '../config/schema.js';
import type { HbarBudgets } from '../limits/hbarBudgets.js';
import { FilterService, type NetworkFilters } from '../live/filters.js';
import { MemoryFilterStore } from '../live/filterStore.js';
import { directCaller, rpcSource } from '../live/source.js';
import { METHODS, dispatch } from '../methods/index.js';
import type { MethodEnv } from '../methods/types.js';
import type { CallContext, RpcBackend } from '../rpc/answer.js';
import { errorObject, type RpcCall, type RpcOutcome } from '../rpc/jsonrpc.js';
import { GatewayError } from '../errors.js';
import { logAddressesOf } from '../ledger/addresses.js';
import { finalAnswer } from '../ledger/finalAnswers.js';
import { LOG_FETCH_CONCURRENCY } from '../methods/eth_getLogs.js';
import { ReadCache, type CacheStats } from '../ledger/cache.js';
import { consensusOnDemand } from '../ledger/consensus.js';
import { MirrorClient, type MirrorStats } from '../ledger/mirror.js';
import { LocalPendingPool, type PendingPool } from '../ledger/pendingPool.js';
import { LedgerReads } from '../ledger/reads.js';
import type { SharedCache } from '../ledger/sharedCache.js';
import { LocalPendingNonces, LocalSenderLocks } from '../ledger/senderOrder.js';

export interface LedgerRelayStats {
  cache: CacheStats;
  mirror: MirrorStats;
}

export interface LedgerRelay extends RpcBackend {
  /**
   * Every address the logs of a `logs` subscription on `addresses` can carry (a contract's EVM and long-zero
   * addresses); refuses one that is neither a contract nor a token, as the official relay does.
   */
  logAddresses(addresses: string[]): Promise<string[]>;
  close(): Promise<void>;
  stats(): LedgerRelayStats;
}

export interface LedgerRelayOptions {
  chainId: number;
  ledger: LedgerConfig;
  relay: Config['relay'];
  /** Where unexpected failures (bugs, not JSON-RPC errors) are reported. */
  logger?: Logger;
  /** Network id, for metric labels. */
  network?: string;
  /** The gateway's hbar spending limits; none apply when absent. */
  hbar?: HbarBudgets;
  /** The gateway's filters (shared by every network and, on Redis, every instance); a private in-memory set when absent. */
  filters?: FilterService;
  /** This network's final answers shared with the other instances on one Redis; each instance's own otherwise. */
  sharedCache?: SharedCache;
  /** This network's pending pool (txpool_*) shared with the other instances on one Redis; each instance's own otherwise. */
  pendingPool?: PendingPool;
  /** This network's senders' turns and pending nonces, likewise. */
  senders?: MethodEnv['senders'];
}

const listOfOne = (outcome: RpcOutcome): RpcOutcome[] => [outcome];

/** geth's filter lifetime, for relays built without the gateway's filter service (tests, tools). */
const DEFAULT_FILTER_TIMEOUT_MS = 300_000;

export function createLedgerRelay(opts: LedgerRelayOptions): LedgerRelay {
  const { ledger, relay } = opts;
  const mirror = new MirrorClient({
    url: ledger.mirrorUrl,
    callUrl: ledger.mirrorCallUrl,
    apiKey: ledger.mirrorApiKey,
    timeoutMs: relay.mirrorTimeoutMs,
    retries: relay.mirrorRetries,
    totalMs: relay.mirrorTotalMs,
    network: opts.network,
  });
  const cache = new ReadCache(relay.cacheBytes, opts.sharedCache);
  const reads = new LedgerReads(mirror, cache, relay.latestCacheMs);
  const consensus =
    ledger.operatorId && ledger.operatorKey ? consensusOnDemand({ ...ledger, operatorId: ledger.operatorId, operatorKey: ledger.operatorKey }) : undefined;
  const pending = opts.pendingPool ?? new LocalPendingPool();
  const senders = opts.senders ?? { locks: new LocalSenderLocks(), pending: new LocalPendingNonces() };
  const sendSync = { defaultMs: relay.sendSyncDefaultMs, maxMs: relay.sendSyncMaxMs };
  const networkId = opts.network ?? `chain-${opts.chainId}`;
  const hbar = opts.hbar && { reserve: opts.hbar.reserve.bind(opts.hbar, networkId) };
  const onUnexpected = (err: unknown, method: string) => opts.logger?.error({ err, method }, 'ledger relay method failed unexpectedly');
  const service = opts.filters ?? new FilterService({ store: new MemoryFilterStore(), timeoutMs: DEFAULT_FILTER_TIMEOUT_MS });
  // Every env is a literal of this one shape: spreading a shared base object into each request's env took 3% of the
  // gateway's time under the relay mix.
  const envOf = (ctx: CallContext, filters: NetworkFilters | undefined) =>
    ({ chainId: opts.chainId, ledger, reads, consensus, hbar, pending, senders, mirrorTotalMs: relay.mirrorTotalMs, maxLogBlocks: relay.maxLogBlocks, sendSync, filters, ctx }) as MethodEnv;
  // Filters read the chain with the relay's own methods (eth_blockNumber, eth_getBlockByNumber, eth_getLogs), which
  // use no per-call context and no filters.
  const readEnv = envOf({ requestId: 'filters' } as CallContext, undefined);
  // An unknown filter is worded as the official relay words it (its FilterService).
  const filters = service.on(networkId, rpcSource(directCaller((c) => METHODS[c.method](c.params, readEnv))), 'LEDGER_FILTER_NOT_FOUND');
  readEnv.filters = filters;

  const notInBatch = new Set(relay.batchDisallowedMethods);
  return {
    handle(calls: RpcCall[], ctx: CallContext): Promise<RpcOutcome[]> {
      // Made only when a call is not answered from kept text.
      let env: MethodEnv | undefined;
      const run = (call: RpcCall) => dispatch(call, (env ??= envOf(ctx, filters)), onUnexpected);
      // A lone call (most requests) without a Promise.all of one.
      if (calls.length === 1 && ctx.batch !== true) return finalAnswer(calls[0], reads, run).then(listOfOne);
      const refused = (call: RpcCall) => ctx.batch === true && notInBatch.has(call.method);
      return Promise.all(calls.map((call) => (refused(call) ? { error: errorObject('METHOD_NOT_IN_BATCH', call.method) } : finalAnswer(call, reads, run))));
    },
    async logAddresses(given) {
      const addresses = [...new Set(given)];
      const max = relay.subscriptionMaxAddresses;
      if (addresses.length > max) {
        // The official relay's words (its validateSubscribeEthLogsParams).
        throw new GatewayError('INVALID_PARAMETER', `filters.address: ${max === 1 ? 'Only one contract address is allowed' : `A maximum of ${max} contract addresses are allowed`}`);
      }
      const all: string[] = [];
      // A few lookups at a time, as eth_getLogs fetches its addresses.
      for (let i = 0; i < addresses.length; i += LOG_FETCH_CONCURRENCY) {
        const batch = addresses.slice(i, i + LOG_FETCH_CONCURRENCY);
        const found = await Promise.all(batch.map((a) => logAddressesOf(reads, a)));
        found.forEach((aliases, j) => {
          if (!aliases) throw new GatewayError('NOT_A_LOG_SOURCE', batch[j]);
          all.push(...aliases);
        });
      }
      return [...new Set(all)];
    },
    async close() {
      await Promise.all([consensus?.close(), mirror.close()]);
    },
    stats() {
      return { cache: cache.stats(), mirror: { ...mirror.stats } };
    },
  };
}
