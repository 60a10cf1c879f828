import type { MethodEnv } from './types.js';

/** Mirror: as eth_getLogs over the filter's fromBlock..toBlock. */
export function eth_getFilterLogs(params: unknown[], env: MethodEnv) {
  return env.filters.call('eth_getFilterLogs', params, env.ctx.key);
}
