import { blockNumberOrTag, bool, positional } from './params.js';
import { blockObject } from './shared.js';
import type { MethodEnv } from './types.js';

/** The hydrated flag is required, as the spec has it. Mirror: GET /api/v1/blocks/{n} (or the newest), then /api/v1/contracts/results in its timestamp range; both cached. */
export async function eth_getBlockByNumber(params: unknown[], env: MethodEnv) {
  const [ref, full] = positional(params, 2, 2);
  const hydrated = bool(full, 1);
  return blockObject(env, await env.reads.resolveBlock(blockNumberOrTag(ref, 0)), hydrated);
}
