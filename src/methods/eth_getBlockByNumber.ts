import { blockNumberOrTag, bool, positional } from './params.js';
import { blockObject } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * The hydrated flag is required, as the spec has it. Mirror: GET /api/v1/blocks/{n} (or the newest) and, beside it,
 * /api/v1/contracts/results?block.number={n}; then the logs in the block's timestamp range; all cached.
 */
export async function eth_getBlockByNumber(params: unknown[], env: MethodEnv) {
  const [ref, full] = positional(params, 2, 2);
  const hydrated = bool(full, 1);
  const block = blockNumberOrTag(ref, 0);
  const rows = env.reads.earlyBlockRows(block);
  return blockObject(env, await env.reads.resolveBlock(block), hydrated, rows);
}
