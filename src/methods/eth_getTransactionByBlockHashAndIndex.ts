import { count, hash32, positional } from './params.js';
import { transactionAt } from './shared.js';
import type { MethodEnv } from './types.js';

/** Mirror: as eth_getBlockByHash (cached). */
export async function eth_getTransactionByBlockHashAndIndex(params: unknown[], env: MethodEnv) {
  const [hash, index] = positional(params, 2, 2);
  const i = count(index, 1);
  return transactionAt(env, await env.reads.blockByHash(hash32(hash, 0)), i);
}
