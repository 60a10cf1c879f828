import { blockNumberOrTag, count, positional } from './params.js';
import { transactionAt } from './shared.js';
import type { MethodEnv } from './types.js';

/** Mirror: as eth_getBlockByNumber (cached); the index is the transaction's position in the record file. */
export async function eth_getTransactionByBlockNumberAndIndex(params: unknown[], env: MethodEnv) {
  const [ref, index] = positional(params, 2, 2);
  const i = count(index, 1);
  return transactionAt(env, await env.reads.resolveBlock(blockNumberOrTag(ref, 0)), i);
}
