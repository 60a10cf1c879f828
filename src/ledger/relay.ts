/**
 * The ledger chain's JSON-RPC backend: answers `eth_*` calls in-process from the mirror node (reads) and consensus
 * nodes (writes). One relay per ledger network; calls of a batch run concurrently.
 */
import type { Logger } from 'pino';
import type { Config, LedgerConfig } from '../config/schema.js';
import { dispatch } from '../methods/index.js';
import type { MethodEnv } from '../methods/types.js';
import type { CallContext, RpcBackend } from '../rpc/answer.js';
import type { RpcCall, RpcOutcome } from '../rpc/jsonrpc.js';
import { ReadCache, type CacheStats } from './cache.js';
import { ConsensusClient } from './consensus.js';
import { MirrorClient, type MirrorStats } from './mirror.js';
import { LedgerReads } from './reads.js';

export interface LedgerRelayStats {
  cache: CacheStats;
  mirror: MirrorStats;
}

export interface LedgerRelay extends RpcBackend {
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
}

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
  const cache = new ReadCache(relay.cacheBytes);
  const reads = new LedgerReads(mirror, cache, relay.latestCacheMs);
  const consensus =
    ledger.operatorId && ledger.operatorKey ? new ConsensusClient({ ...ledger, operatorId: ledger.operatorId, operatorKey: ledger.operatorKey }) : undefined;
  const onUnexpected = (err: unknown, method: string) => opts.logger?.error({ err, method }, 'ledger relay method failed unexpectedly');

  return {
    handle(calls: RpcCall[], ctx: CallContext): Promise<RpcOutcome[]> {
      const env: MethodEnv = { chainId: opts.chainId, ledger, reads, consensus, mirrorTotalMs: relay.mirrorTotalMs, ctx };
      return Promise.all(calls.map((call) => dispatch(call, env, onUnexpected)));
    },
    async close() {
      consensus?.close();
      await mirror.close();
    },
    stats() {
      return { cache: cache.stats(), mirror: { ...mirror.stats } };
    },
  };
}
