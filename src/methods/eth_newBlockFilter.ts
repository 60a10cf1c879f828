import type { MethodEnv } from './types.js';

/** Mirror: the head block (GET /api/v1/blocks?limit=1&order=desc, then /api/v1/blocks/{n}, cached) the filter starts after. */
export function eth_newBlockFilter(params: unknown[], env: MethodEnv) {
  return env.filters.call('eth_newBlockFilter', params, env.ctx.key);
}
