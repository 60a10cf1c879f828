import { formatReceipt } from '../ledger/format.js';
import { hash32, positional } from './params.js';
import { blockOfResult, gasPriceWeibar } from './shared.js';
import type { MethodEnv } from './types.js';

/** Mirror: GET /api/v1/contracts/results/{hash} (with its logs) and the block by number (both cached once found). */
export async function eth_getTransactionReceipt(params: unknown[], env: MethodEnv) {
  const [hash] = positional(params, 1, 1);
  const result = await env.reads.contractResult(hash32(hash, 'transaction hash'));
  if (!result) return null;
  const [block, price] = await Promise.all([blockOfResult(env, result), gasPriceWeibar(env)]);
  return formatReceipt(result, block, price);
}
