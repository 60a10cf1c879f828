import type { LedgerConfig } from '../config/schema.js';
import type { Consensus } from '../ledger/consensus.js';
import type { PendingPool } from '../ledger/pendingPool.js';
import type { LedgerReads } from '../ledger/reads.js';
import type { NetworkFilters } from '../live/filters.js';
import type { CallContext } from '../rpc/answer.js';

/** What a relay method may use; one per network, with the call's context. */
export interface MethodEnv {
  chainId: number;
  ledger: LedgerConfig;
  reads: LedgerReads;
  /** Absent when no operator account is configured: reads work, writes are refused. */
  consensus: Consensus | undefined;
  /** Bound on waiting for the mirror node to show a submitted transaction. */
  mirrorTotalMs: number;
  /** This relay's submissions awaiting their consensus receipt (txpool_*). */
  pending: PendingPool;
  /** This network's filters (eth_newFilter and friends), read from the mirror node through the relay's own methods. */
  filters: NetworkFilters;
  ctx: CallContext;
}

/** One JSON-RPC method: throws GatewayError for JSON-RPC errors. */
export type Method = (params: unknown[], env: MethodEnv) => Promise<unknown>;
