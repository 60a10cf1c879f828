import { blockNumberOrTag, positional } from './params.js';
import { uncleCount } from './uncles.js';
import type { MethodEnv } from './types.js';

/** Mirror: the block (cached), to tell an existing block (0x0) from an unknown one (null). */
export async function eth_getUncleCountByBlockNumber(params: unknown[], env: MethodEnv): Promise<string | null> {
  const [ref] = positional(params, 1, 1);
  return uncleCount(await env.reads.resolveBlock(blockNumberOrTag(ref)));
}
