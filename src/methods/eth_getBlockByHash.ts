import { bool, hash32, positional } from './params.js';
import { blockObject } from './shared.js';
import type { MethodEnv } from './types.js';

/** The hydrated flag is required, as the spec has it. Mirror: GET /api/v1/blocks/{hash}, then /api/v1/contracts/results in its timestamp range; both cached. */
export async function eth_getBlockByHash(params: unknown[], env: MethodEnv) {
  const [hash, full] = positional(params, 2, 2);
  const hydrated = bool(full, 1);
  return blockObject(env, await env.reads.blockByHash(hash32(hash, 0)), hydrated);
}
