import { blockContext, formatReceipt } from '../ledger/format.js';
import { blockNumberOrTagOrHash, positional } from './params.js';
import { blockGasPriceWeibar, partiesOfTx } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * Every receipt of a block, synthetic transactions' included, in block order; null for an unknown block. Mirror: the
 * block and its contract results and logs (cached), each sender's and recipient's EVM address (cached).
 */
export async function eth_getBlockReceipts(params: unknown[], env: MethodEnv) {
  const [ref] = positional(params, 1, 1);
  const block = await env.reads.resolveBlock(blockNumberOrTagOrHash(ref, 0));
  if (!block) return null;
  const [contents, price] = await Promise.all([env.reads.blockContents(block), blockGasPriceWeibar(env, block.timestamp.to)]);
  const parties = await Promise.all(contents.txs.map((tx) => partiesOfTx(env, tx)));
  const ctx = blockContext(block);
  return contents.txs.map((tx, i) => formatReceipt(tx, parties[i], ctx, price));
}
