import { hash32, positional } from './params.js';
import { uncleCount } from './uncles.js';
import type { MethodEnv } from './types.js';

/** Mirror: the block (cached), to tell an existing block (0x0) from an unknown one (null). */
export async function eth_getUncleCountByBlockHash(params: unknown[], env: MethodEnv): Promise<string | null> {
  const [hash] = positional(params, 1, 1);
  return uncleCount(await env.reads.blockByHash(hash32(hash, 'block hash')));
}
