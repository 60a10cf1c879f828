import { formatReceipt } from '../ledger/format.js';
import { hash32, positional } from './params.js';
import { locateTransaction, partiesOfTx } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: as eth_getTransactionByHash, plus the block's contract results and logs (cached) for the running
 * cumulativeGasUsed and the logs.
 */
export async function eth_getTransactionReceipt(params: unknown[], env: MethodEnv) {
  const [hash] = positional(params, 1, 1);
  const found = await locateTransaction(env, hash32(hash, 0));
  if (!found) return null;
  return formatReceipt(found.tx, await partiesOfTx(env, found.tx), found.block, found.price);
}
