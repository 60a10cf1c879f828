/** Ethereum JSON-RPC objects (block, transaction, receipt, log) built from mirror-node records. */
import {
  EMPTY_BLOOM,
  EMPTY_TRIE_ROOT,
  EMPTY_UNCLES_HASH,
  ZERO_ADDRESS,
  ZERO_HASH,
  fixedBytes,
  hexFieldToQuantity,
  timestampSeconds,
  tinybarFieldToWeibar,
  toHash32,
  toQuantity,
} from './convert.js';
import type { ContractResult, MirrorBlock, MirrorLog } from './reads.js';

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

/**
 * A transaction as Ethereum describes it. Fee fields on the mirror node are tinybar and become weibar; a ledger
 * contract call that was not an Ethereum transaction (type null) is shown as a legacy transaction.
 */
export function formatTransaction(r: ContractResult, block: BlockContext, gasPriceWeibar: bigint) {
  const type = r.type ?? 0;
  const gasPrice = r.gas_price && r.gas_price !== '0x' ? tinybarFieldToWeibar(r.gas_price) : toQuantity(gasPriceWeibar);
  const base = {
    blockHash: block.hash,
    blockNumber: toQuantity(block.number),
    blockTimestamp: toQuantity(block.timestamp),
    from: r.from.toLowerCase(),
    gas: toQuantity(r.gas_limit),
    gasPrice,
    hash: toHash32(r.hash),
    input: data(r.function_parameters),
    nonce: toQuantity(r.nonce ?? 0),
    to: isCreation(r) ? null : (r.to ?? r.address)?.toLowerCase() ?? null,
    transactionIndex: toQuantity(r.transaction_index ?? 0),
    value: tinybarFieldToWeibar(r.amount ?? 0),
    type: toQuantity(type),
    r: hexFieldToQuantity(r.r),
    s: hexFieldToQuantity(r.s),
  };
  const v = toQuantity(r.v ?? 0);
  if (type === 0) return { ...base, v, ...(r.chain_id && r.chain_id !== '0x' ? { chainId: hexFieldToQuantity(r.chain_id) } : {}) };
  const typed = { ...base, chainId: hexFieldToQuantity(r.chain_id), accessList: [], v, yParity: v };
  if (type === 1) return typed;
  return {
    ...typed,
    maxFeePerGas: r.max_fee_per_gas && r.max_fee_per_gas !== '0x' ? tinybarFieldToWeibar(r.max_fee_per_gas) : gasPrice,
    maxPriorityFeePerGas: tinybarFieldToWeibar(r.max_priority_fee_per_gas),
  };
}

export function formatReceipt(r: ContractResult, block: BlockContext, gasPriceWeibar: bigint) {
  const creation = isCreation(r);
  const tx = { hash: r.hash, index: r.transaction_index };
  return {
    blockHash: block.hash,
    blockNumber: toQuantity(block.number),
    contractAddress: creation ? (r.address?.toLowerCase() ?? null) : null,
    cumulativeGasUsed: toQuantity(r.block_gas_used ?? r.gas_used ?? 0),
    effectiveGasPrice: toQuantity(gasPriceWeibar),
    from: r.from.toLowerCase(),
    gasUsed: toQuantity(r.gas_used ?? 0),
    logs: (r.logs ?? []).map((log) => formatLog(log, tx, block)),
    logsBloom: r.bloom && r.bloom !== '0x' ? fixedBytes(r.bloom, 256) : EMPTY_BLOOM,
    status: r.status === '0x1' ? '0x1' : '0x0',
    to: creation ? null : (r.to ?? r.address)?.toLowerCase() ?? null,
    transactionHash: toHash32(r.hash),
    transactionIndex: toQuantity(r.transaction_index ?? 0),
    type: toQuantity(r.type ?? 0),
  };
}

/**
 * A block as Ethereum describes it. Roots the ledger does not have are the empty-trie root (no transactions) or
 * the block hash (some), as the official relay does; proof-of-work fields are zero.
 */
export function formatBlock(
  block: MirrorBlock,
  results: ContractResult[],
  full: boolean,
  opts: { gasPriceWeibar: bigint; gasLimit: number },
) {
  const ctx = blockContext(block);
  const txRoot = results.length > 0 ? ctx.hash : EMPTY_TRIE_ROOT;
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
    receiptsRoot: txRoot,
    sha3Uncles: EMPTY_UNCLES_HASH,
    size: toQuantity(block.size ?? 0),
    stateRoot: EMPTY_TRIE_ROOT,
    timestamp: toQuantity(ctx.timestamp),
    totalDifficulty: '0x0',
    transactions: full ? results.map((r) => formatTransaction(r, ctx, opts.gasPriceWeibar)) : results.map((r) => toHash32(r.hash)),
    transactionsRoot: txRoot,
    uncles: [],
    withdrawals: [],
    withdrawalsRoot: EMPTY_TRIE_ROOT,
  };
}
