/** Mirror-node records as the relay reads them (the mirror node's REST shapes), and how methods name a block. */

/** A block by number, tag or hash, as the relay's methods name blocks. */
export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized';
export type BlockRef = { tag: BlockTag } | { number: number } | { hash: string };

export interface MirrorBlock {
  number: number;
  hash: string;
  previous_hash: string;
  timestamp: { from: string; to: string };
  gas_used: number | null;
  logs_bloom: string | null;
  size: number | null;
  count: number;
  /** The services release that wrote the block, `major.minor.patch`. */
  hapi_version?: string | null;
}

export interface MirrorLog {
  address: string;
  block_hash?: string;
  block_number?: number;
  data: string | null;
  index: number;
  topics: string[];
  transaction_hash?: string;
  transaction_index?: number;
  timestamp?: string;
}

/**
 * A contract result as /contracts/results lists it; the by-hash form adds logs. LedgerReads hands them out with the
 * monetary fields (`amount`, `gas_price`, `max_fee_per_gas`, `max_priority_fee_per_gas`) in weibar, whichever unit
 * the mirror node answered in.
 */
export interface ContractResult {
  address: string | null;
  amount: number | bigint | null;
  block_gas_used: number | null;
  block_hash: string | null;
  block_number: number | null;
  bloom: string | null;
  call_result: string | null;
  chain_id: string | null;
  contract_id: string | null;
  created_contract_ids: string[] | null;
  error_message: string | null;
  /** The sender's long-zero address; null on the synthetic rows of v0.157's release candidates (blocks.ts). */
  from: string | null;
  function_parameters: string | null;
  gas_limit: number;
  gas_price: string | null;
  gas_used: number | null;
  hash: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  nonce: number | null;
  r: string | null;
  s: string | null;
  v: number | null;
  result: string;
  status: string;
  timestamp: string;
  to: string | null;
  transaction_index: number | null;
  type: number | null;
  /**
   * The EIP-2930 access list the wrapped Ethereum transaction carried: entries since mirror node v0.156 (OpenAPI
   * `AccessList`), a hex string (`0x`) or null before.
   */
  access_list?: AccessListEntry[] | string | null;
  logs?: MirrorLog[];
  /** The storage slots the transaction read and wrote: in a single result, not in listings. */
  state_changes?: StateChange[] | null;
}

/** One entry of a contract result's `access_list`, as the mirror node's OpenAPI document defines it. */
export interface AccessListEntry {
  address: string;
  storage_keys: string[] | null;
}

/** One row of a contract result's `state_changes`, as the mirror node's OpenAPI document defines it. */
export interface StateChange {
  address: string;
  contract_id: string | null;
  slot: string;
  value_read: string;
  value_written: string | null;
}

export interface MirrorAccount {
  account: string;
  balance: { balance: number | bigint; timestamp: string | null } | null;
  ethereum_nonce: number | null;
  evm_address: string | null;
}
