/**
 * Ethereum JSON-RPC objects (block, transaction, receipt, log) built from mirror-node records. Pure functions of final
 * data: the same inputs always give the same answer, so an answer may be kept as it is.
 */
import {
  EMPTY_BLOOM,
  EMPTY_TRIE_ROOT,
  EMPTY_UNCLES_HASH,
  ZERO_ADDRESS,
  ZERO_HASH,
  fixedBytes,
  hexFieldToQuantity,
  timestampSeconds,
  toHash32,
  toQuantity,
} from './convert.js';
import type { Parties } from './addresses.js';
import type { BlockContents, BlockTx } from './blocks.js';
import type { ContractResult, MirrorBlock, MirrorLog } from './reads.js';
import { logsBloom } from './receipts.js';

export interface BlockContext {
  number: number;
  hash: string;
  timestamp: number;
}

export function blockContext(block: MirrorBlock): BlockContext {
  return { number: block.number, hash: toHash32(block.hash), timestamp: timestampSeconds(block.timestamp.from) };
}

function isCreation(r: ContractResult): boolean {
  return r.contract_id !== null && (r.created_contract_ids ?? []).includes(r.contract_id);
}

function data(value: string | null | undefined): string {
  return value && value !== '0x' ? value.toLowerCase() : '0x';
}

export function formatLog(log: MirrorLog, tx: { hash: string; index: number | null | undefined }, block: BlockContext) {
  return {
    address: log.address.toLowerCase(),
    blockHash: block.hash,
    blockNumber: toQuantity(block.number),
    blockTimestamp: toQuantity(block.timestamp),
    data: data(log.data),
    logIndex: toQuantity(log.index),
    removed: false,
    topics: log.topics.map((t) => fixedBytes(t, 32)),
    transactionHash: toHash32(tx.hash),
    transactionIndex: toQuantity(tx.index ?? 0),
  };
}

/** A money field in weibar (hex, `0x` or null meaning none) as a quantity, or `fallback` when there is none. */
function weibar(value: string | null | undefined, fallback: string): string {
  return value && value !== '0x' ? hexFieldToQuantity(value) : fallback;
}

/**
 * A transaction as Ethereum describes it; a ledger contract call that was not an Ethereum transaction (type null)
 * is shown as a legacy transaction. Monetary fields are weibar already (see LedgerReads). A typed transaction always
 * has a chain id; where the mirror node has none, it is this chain's.
 */
export function formatTransaction(r: ContractResult, parties: Parties, block: BlockContext, opts: { gasPriceWeibar: bigint; chainId: number }) {
  const gasPriceWeibar = opts.gasPriceWeibar;
  const type = r.type ?? 0;
  const gasPrice = weibar(r.gas_price, toQuantity(gasPriceWeibar));
  const base = {
    blockHash: block.hash,
    blockNumber: toQuantity(block.number),
    blockTimestamp: toQuantity(block.timestamp),
    from: parties.from,
    gas: toQuantity(r.gas_limit),
    gasPrice,
    hash: toHash32(r.hash),
    input: data(r.function_parameters),
    nonce: toQuantity(r.nonce ?? 0),
    to: isCreation(r) ? null : parties.to,
    transactionIndex: toQuantity(r.transaction_index ?? 0),
    value: toQuantity(BigInt(r.amount ?? 0)),
    type: toQuantity(type),
    r: hexFieldToQuantity(r.r),
    s: hexFieldToQuantity(r.s),
  };
  const v = toQuantity(r.v ?? 0);
  // The members are added to `base` rather than spread into new literals: `{ ...base, v }` is a runtime call on this
  // Node (V8 11.3), and the three copies took about 6 us a transaction, once for every transaction of a block not cached.
  if (type === 0) return Object.assign(base, { v, ...(r.chain_id && r.chain_id !== '0x' ? { chainId: hexFieldToQuantity(r.chain_id) } : {}) });
  const chainId = r.chain_id && r.chain_id !== '0x' ? hexFieldToQuantity(r.chain_id) : toQuantity(opts.chainId);
  const typed = Object.assign(base, { chainId, accessList: formatAccessList(r.access_list), v, yParity: v });
  if (type === 1) return typed;
  return Object.assign(typed, { maxFeePerGas: weibar(r.max_fee_per_gas, gasPrice), maxPriorityFeePerGas: weibar(r.max_priority_fee_per_gas, '0x0') });
}

/**
 * The mirror node's snake_case access list in Ethereum's shape: addresses of 20 bytes, keys as the mirror stored them
 * (32 bytes). Older nodes' hex string is shown as an empty list, as the official relay shows it.
 */
function formatAccessList(list: ContractResult['access_list']) {
  return (Array.isArray(list) ? list : []).map((e) => ({ address: fixedBytes(e.address, 20), storageKeys: (e.storage_keys ?? []).map((k) => k.toLowerCase()) }));
}

/** Gas the official relay gives a synthetic transaction (its default transaction gas), and its trace's top frame. */
export const SYNTHETIC_GAS = '0x61a80';
/** The official relay's gas price of a synthetic transaction: the INVALID opcode, a marker rather than a price. */
const SYNTHETIC_GAS_PRICE = '0xfe';

/**
 * Where a synthetic transaction is shown. The official relay builds it three ways, and wallets and indexers already
 * read those shapes: inside a block as a legacy transaction with zero signature values; looked up by hash as a
 * legacy transaction with empty ones; looked up by block and index as a dynamic-fee transaction with empty ones.
 */
export type SyntheticShape = 'in-block' | 'by-hash' | 'by-index';

/** An HTS token transfer (logs without a contract result) as a transaction of its block, sent by the token to itself. */
export function formatSyntheticTransaction(tx: BlockTx, block: BlockContext, chainId: number, shape: SyntheticShape) {
  const token = tx.logs[0].address.toLowerCase();
  const signature = shape === 'in-block' ? '0x0' : '0x';
  const base = {
    blockHash: block.hash,
    blockNumber: toQuantity(block.number),
    blockTimestamp: toQuantity(block.timestamp),
    chainId: toQuantity(chainId),
    from: token,
    gas: SYNTHETIC_GAS,
    gasPrice: SYNTHETIC_GAS_PRICE,
    hash: tx.hash,
    input: '0x0000000000000000',
    nonce: '0x0',
    r: signature,
    s: signature,
    to: token,
    transactionIndex: toQuantity(tx.index),
    v: '0x0',
    value: '0x0',
  };
  // Added to `base`, not spread into a new literal (a runtime call on this Node; see formatTransaction).
  if (shape !== 'by-index') return Object.assign(base, { type: '0x0' });
  return Object.assign(base, { type: '0x2', yParity: '0x0', accessList: [], maxPriorityFeePerGas: '0x0', maxFeePerGas: '0x0' });
}

/** A block transaction as Ethereum shows it; `parties` is only read for a contract result. */
export function formatBlockTransaction(tx: BlockTx, parties: Parties | null, block: BlockContext, opts: { gasPriceWeibar: bigint; chainId: number }, shape: SyntheticShape) {
  return tx.result && parties ? formatTransaction(tx.result, parties, block, opts) : formatSyntheticTransaction(tx, block, opts.chainId, shape);
}

/**
 * A receipt. A synthetic transaction's receipt is sent from the zero address to the token, uses no gas and carries
 * the bloom of its logs; `cumulativeGasUsed` is the running sum within the block either way.
 */
export function formatReceipt(tx: BlockTx, parties: Parties | null, block: BlockContext, gasPriceWeibar: bigint) {
  const r = tx.result;
  const creation = r !== null && isCreation(r);
  const token = tx.logs[0]?.address.toLowerCase() ?? null;
  return {
    blockHash: block.hash,
    blockNumber: toQuantity(block.number),
    contractAddress: creation ? (r.address?.toLowerCase() ?? null) : null,
    cumulativeGasUsed: toQuantity(tx.cumulativeGasUsed),
    effectiveGasPrice: toQuantity(gasPriceWeibar),
    from: r && parties ? parties.from : ZERO_ADDRESS,
    gasUsed: toQuantity(tx.gasUsed),
    logs: tx.logs.map((log) => formatLog(log, tx, block)),
    logsBloom: r ? (r.bloom && r.bloom !== '0x' ? fixedBytes(r.bloom, 256) : EMPTY_BLOOM) : logsBloom(tx.logs),
    status: r === null || r.status === '0x1' ? '0x1' : '0x0',
    to: creation ? null : r && parties ? parties.to : token,
    transactionHash: tx.hash,
    transactionIndex: toQuantity(tx.index),
    type: toQuantity(r?.type ?? 0),
    ...(r?.error_message ? { revertReason: receiptRevertReason(r.error_message) } : {}),
  };
}

/**
 * A failed transaction's reason, as the official relay puts it in receipts (its TransactionReceiptFactory): the
 * mirror node's `error_message` when it is hex (revert data), else that text hex-encoded (`INSUFFICIENT_GAS`).
 */
function receiptRevertReason(message: string): string {
  return /^(0x)?[0-9a-fA-F]*$/.test(message) ? message : `0x${Buffer.from(message, 'utf8').toString('hex')}`;
}

/**
 * A block as Ethereum describes it. `receiptsRoot` is the root of the block's receipts trie; the transactions root
 * is the block hash (some transactions) or the empty-trie root (none), as the official relay has it, since the
 * ledger keeps no signed envelopes to build that trie from; proof-of-work fields are zero.
 */
export function formatBlock(
  block: MirrorBlock,
  contents: BlockContents,
  /** Each transaction's parties, in the same order; only read when `full`. */
  parties: Array<Parties | null>,
  full: boolean,
  opts: { gasPriceWeibar: bigint; gasLimit: number; chainId: number },
) {
  const ctx = blockContext(block);
  const txs = contents.txs;
  return {
    baseFeePerGas: toQuantity(opts.gasPriceWeibar),
    difficulty: '0x0',
    extraData: '0x',
    gasLimit: toQuantity(opts.gasLimit),
    gasUsed: toQuantity(block.gas_used ?? 0),
    hash: ctx.hash,
    logsBloom: block.logs_bloom && block.logs_bloom !== '0x' ? fixedBytes(block.logs_bloom, 256) : EMPTY_BLOOM,
    miner: ZERO_ADDRESS,
    mixHash: ZERO_HASH,
    nonce: '0x0000000000000000',
    number: toQuantity(block.number),
    parentHash: toHash32(block.previous_hash),
    receiptsRoot: contents.receiptsRoot,
    sha3Uncles: EMPTY_UNCLES_HASH,
    size: toQuantity(block.size ?? 0),
    stateRoot: EMPTY_TRIE_ROOT,
    timestamp: toQuantity(ctx.timestamp),
    totalDifficulty: '0x0',
    transactions: full ? txs.map((tx, i) => formatBlockTransaction(tx, parties[i], ctx, opts, 'in-block')) : txs.map((tx) => tx.hash),
    transactionsRoot: txs.length > 0 ? ctx.hash : EMPTY_TRIE_ROOT,
    uncles: [],
    withdrawals: [],
    withdrawalsRoot: EMPTY_TRIE_ROOT,
  };
}
