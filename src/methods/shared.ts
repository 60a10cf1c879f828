/** Lookups several methods share: a block as Ethereum shows it, a block's transaction by index, the gas price. */
import { tinybarToWeibar, timestampSeconds, toHash32 } from '../ledger/convert.js';
import { blockContext, formatBlock, formatTransaction, type BlockContext } from '../ledger/format.js';
import type { ContractResult, MirrorBlock } from '../ledger/reads.js';
import type { BlockRef } from './params.js';
import type { MethodEnv } from './types.js';

export async function gasPriceWeibar(env: MethodEnv): Promise<bigint> {
  return tinybarToWeibar(await env.reads.gasPriceTinybar());
}

export async function blockObject(env: MethodEnv, block: MirrorBlock | null, full: boolean) {
  if (!block) return null;
  const [results, price] = await Promise.all([env.reads.blockResults(block), gasPriceWeibar(env)]);
  return formatBlock(block, results, full, { gasPriceWeibar: price, gasLimit: env.ledger.maxGas });
}

export async function transactionAt(env: MethodEnv, block: MirrorBlock | null, index: number) {
  if (!block) return null;
  const results = await env.reads.blockResults(block);
  const found = results.find((r) => r.transaction_index === index);
  return found ? formatTransaction(found, blockContext(block), await gasPriceWeibar(env)) : null;
}

/** The block a transaction is in, from the (cached) block so timestamps agree with eth_getBlock*. */
export async function blockOfResult(env: MethodEnv, r: ContractResult): Promise<BlockContext> {
  const block = r.block_number === null ? null : await env.reads.blockByNumber(r.block_number);
  if (block) return blockContext(block);
  return { number: r.block_number ?? 0, hash: toHash32(r.block_hash ?? ''), timestamp: timestampSeconds(r.timestamp) };
}

/**
 * The consensus timestamp a state read refers to, or undefined for the current state. Head tags, and numbers at or
 * past the newest block, read the current state, which needs no block lookup.
 */
export async function stateTimestamp(env: MethodEnv, ref: BlockRef): Promise<string | undefined> {
  if ('tag' in ref && ref.tag !== 'earliest') return undefined;
  if ('number' in ref && ref.number >= (await env.reads.latestBlock()).number) return undefined;
  return (await env.reads.requireBlock(ref)).timestamp.to;
}
