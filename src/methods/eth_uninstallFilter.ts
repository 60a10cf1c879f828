import type { MethodEnv } from './types.js';

/** Mirror: nothing; the filter is the gateway's. */
export function eth_uninstallFilter(params: unknown[], env: MethodEnv) {
  return env.filters.call('eth_uninstallFilter', params, env.ctx.key);
}
