import type { MethodEnv } from './types.js';

/**
 * Mirror: the head (GET /api/v1/blocks?limit=1&order=desc, cached), the new blocks (GET /api/v1/blocks/{n} and their
 * contract results, cached), and for a log filter the logs of those blocks as eth_getLogs reads them.
 */
export function eth_getFilterChanges(params: unknown[], env: MethodEnv) {
  return env.filters.call('eth_getFilterChanges', params, env.ctx.key);
}
