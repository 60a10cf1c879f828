/**
 * A block's transactions as Ethereum counts them, from what the mirror node keeps over the block's timestamp range:
 * every contract result, plus one synthetic transaction per transaction hash that has logs but no contract result
 * (an HTS token's transfer, which the ledger runs outside the EVM but logs like an ERC-20). They count in
 * `transactions`, in look-ups by index and in the receipts root, ordered by their index in the record file.
 */
import { EMPTY_TRIE_ROOT, toHash32 } from './convert.js';
import type { ContractResult, MirrorLog } from './records.js';
import { logsBloom, receiptsRoot, type TrieReceipt } from './receipts.js';

export interface BlockTx {
  /** 32-byte Ethereum hash. */
  hash: string;
  /** Index in the record file, as the mirror node numbers it. */
  index: number;
  /** The contract result; null for a synthetic transaction. */
  result: ContractResult | null;
  /** The transaction's logs, in block order. */
  logs: MirrorLog[];
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
}

export interface BlockContents {
  txs: BlockTx[];
  receiptsRoot: string;
}

/**
 * Whether a listed contract result is the mirror node's stand-in for an HTS transfer made through HAPI rather than
 * something the EVM ran. hiero-mirror-node PR #13503 (issue #12883; shipped from v0.158, disabled in v0.157 by PR
 * #13765) merges into /contracts/results one row per transaction of synthetic logs (rest/service/contractService.js),
 * with nothing an execution has: `gas_limit` 0, `gas_used` null, no signature, `from` null before PR #13774 (issue
 * #13766) and the payer after. No EVM execution has a gas limit of 0: the ledger refuses one below the intrinsic gas
 * before consensus. Such a transaction is built from its logs, as when the mirror node listed only those.
 */
export function isSyntheticResult(r: ContractResult): boolean {
  return !r.gas_limit && !r.gas_used;
}

/** What a transaction's receipt commits to, in the receipts trie and in debug_getRawReceipts. */
export function trieReceipt(tx: BlockTx): TrieReceipt {
  const r = tx.result;
  return {
    index: tx.index,
    type: r ? (r.type ?? 0) : 0,
    success: r ? r.status === '0x1' : true,
    zeroPostState: r === null,
    cumulativeGasUsed: tx.cumulativeGasUsed,
    bloom: r ? (r.bloom ?? '0x') : logsBloom(tx.logs),
    logs: tx.logs,
  };
}

/** Pure: the block's contents from its (executed, de-duplicated) contract results and its logs. */
export function assembleBlock(results: ContractResult[], logs: MirrorLog[]): BlockContents {
  const txs = blockTxs(results, logs);
  return { txs, receiptsRoot: txs.length === 0 ? EMPTY_TRIE_ROOT : receiptsRoot(txs.map(trieReceipt)) };
}

/**
 * The block's transactions in order with their running gas. Only contract results use gas, so given just one
 * transaction's logs, that transaction still comes out as it would with all of them.
 */
export function blockTxs(results: ContractResult[], logs: MirrorLog[]): BlockTx[] {
  const logsByHash = new Map<string, MirrorLog[]>();
  for (const log of logs) {
    const hash = toHash32(log.transaction_hash ?? '');
    const list = logsByHash.get(hash);
    if (list) list.push(log);
    else logsByHash.set(hash, [log]);
  }
  const txs: Array<Omit<BlockTx, 'cumulativeGasUsed'>> = results.map((r) => {
    const hash = toHash32(r.hash);
    return { hash, index: r.transaction_index ?? 0, result: r, logs: logsByHash.get(hash) ?? [], gasUsed: BigInt(r.gas_used ?? 0) };
  });
  const known = new Set(txs.map((tx) => tx.hash));
  for (const [hash, txLogs] of logsByHash) {
    if (!known.has(hash)) txs.push({ hash, index: txLogs[0].transaction_index ?? 0, result: null, logs: txLogs, gasUsed: 0n });
  }
  txs.sort((a, b) => a.index - b.index);
  let cumulative = 0n;
  // Added to each (made above, held by nothing else) rather than spread into a copy: a runtime call on this Node.
  return txs.map((tx) => Object.assign(tx, { cumulativeGasUsed: (cumulative += tx.gasUsed) }));
}

/** A contract result on its own, for when its block's listing does not have it (the mirror node is catching up). */
export function standaloneTx(r: ContractResult): BlockTx {
  const gasUsed = BigInt(r.gas_used ?? 0);
  return { hash: toHash32(r.hash), index: r.transaction_index ?? 0, result: r, logs: r.logs ?? [], gasUsed, cumulativeGasUsed: gasUsed };
}
