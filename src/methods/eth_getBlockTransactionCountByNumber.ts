import { toQuantity } from '../ledger/convert.js';
import { blockNumberOrTag, positional } from './params.js';
import type { MethodEnv } from './types.js';

/** Mirror: as eth_getBlockByNumber (cached). */
export async function eth_getBlockTransactionCountByNumber(params: unknown[], env: MethodEnv): Promise<string | null> {
  const [ref] = positional(params, 1, 1);
  const block = await env.reads.resolveBlock(blockNumberOrTag(ref, 0));
  return block ? toQuantity((await env.reads.blockContents(block)).txs.length) : null;
}
