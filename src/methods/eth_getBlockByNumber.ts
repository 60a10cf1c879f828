import { blockNumberOrTag, bool, positional } from './params.js';
import { blockObject } from './shared.js';
import type { MethodEnv } from './types.js';

/** Mirror: GET /api/v1/blocks/{n} (or the newest), then /api/v1/contracts/results in its timestamp range; both cached. */
export async function eth_getBlockByNumber(params: unknown[], env: MethodEnv) {
  const [ref, full] = positional(params, 1, 2);
  const hydrated = full === undefined ? false : bool(full, 'hydrated transactions flag');
  return blockObject(env, await env.reads.resolveBlock(blockNumberOrTag(ref)), hydrated);
}
