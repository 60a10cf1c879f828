import { formatTransaction } from '../ledger/format.js';
import { hash32, positional } from './params.js';
import { blockOfResult, gasPriceWeibar } from './shared.js';
import type { MethodEnv } from './types.js';

/** Mirror: GET /api/v1/contracts/results/{hash} and the block by number (both cached once found). */
export async function eth_getTransactionByHash(params: unknown[], env: MethodEnv) {
  const [hash] = positional(params, 1, 1);
  const result = await env.reads.contractResult(hash32(hash, 'transaction hash'));
  if (!result) return null;
  const [block, price] = await Promise.all([blockOfResult(env, result), gasPriceWeibar(env)]);
  return formatTransaction(result, block, price);
}
