import { toQuantity } from '../ledger/convert.js';
import { hash32, positional } from './params.js';
import type { MethodEnv } from './types.js';

/** Mirror: as eth_getBlockByHash (cached). */
export async function eth_getBlockTransactionCountByHash(params: unknown[], env: MethodEnv): Promise<string | null> {
  const [hash] = positional(params, 1, 1);
  const block = await env.reads.blockByHash(hash32(hash, 0));
  return block ? toQuantity((await env.reads.blockContents(block)).txs.length) : null;
}
