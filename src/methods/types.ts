import type { LedgerConfig } from '../config/schema.js';
import type { Consensus } from '../ledger/consensus.js';
import type { PendingPool } from '../ledger/pendingPool.js';
import type { LedgerReads } from '../ledger/reads.js';
import type { PendingNonces, SenderLocks } from '../ledger/senderOrder.js';
import type { NetworkFilters } from '../live/filters.js';
import type { VerifiedKey } from '../keys/types.js';
import type { HbarReservation } from '../limits/hbarBudgets.js';
import type { CallContext } from '../rpc/answer.js';
import type { SyncWaitLimits } from '../rpc/sendSync.js';

/** The hbar spending limits of this network: a write reserves its largest fee here before it is submitted. */
export interface NetworkHbarBudgets {
  reserve(key: VerifiedKey | undefined, tinybar: number): Promise<HbarReservation>;
}

/** What a relay method may use; one per network, with the call's context. */
export interface MethodEnv {
  chainId: number;
  ledger: LedgerConfig;
  reads: LedgerReads;
  /** Absent when no operator account is configured: reads work, writes are refused. */
  consensus: Consensus | undefined;
  /** Absent where no hbar limits apply (relays built without the gateway, in tests and tools). */
  hbar: NetworkHbarBudgets | undefined;
  /** Each sender's turns at submitting and its submitted nonces the mirror node does not show yet. */
  senders: { locks: SenderLocks; pending: PendingNonces };
  /** Bound on waiting for the mirror node to show a submitted transaction. */
  mirrorTotalMs: number;
  /** This relay's submissions awaiting their consensus receipt (txpool_*). */
  pending: PendingPool;
  /** Widest eth_getLogs range (toBlock - fromBlock) for keys whose plan sets none (relay.maxLogBlocks). */
  maxLogBlocks: number;
  /** eth_sendRawTransactionSync's wait for the receipt. */
  sendSync: SyncWaitLimits;
  /** This network's filters (eth_newFilter and friends), read from the mirror node through the relay's own methods. */
  filters: NetworkFilters;
  ctx: CallContext;
}

/** One JSON-RPC method: throws GatewayError for JSON-RPC errors. */
export type Method = (params: unknown[], env: MethodEnv) => Promise<unknown>;
