import { bool, hash32, positional } from './params.js';
import { blockObject } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * The hydrated flag is required, as the spec has it. Mirror: GET /api/v1/blocks/{hash} and, beside it,
 * /api/v1/contracts/results?block.hash={hash}; then the logs in the block's timestamp range; all cached.
 */
export async function eth_getBlockByHash(params: unknown[], env: MethodEnv) {
  const [hash, full] = positional(params, 2, 2);
  const hydrated = bool(full, 1);
  const ref = { hash: hash32(hash, 0) };
  const rows = env.reads.earlyBlockRows(ref);
  return blockObject(env, await env.reads.blockByHash(ref.hash), hydrated, rows);
}
