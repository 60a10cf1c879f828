import type { MethodEnv } from './types.js';

/**
 * Mirror: nothing. The ledger has no public mempool (transactions go straight to consensus nodes), so, as an Ethereum
 * node without one does, the filter is made and its changes are always empty.
 */
export function eth_newPendingTransactionFilter(params: unknown[], env: MethodEnv) {
  return env.filters.call('eth_newPendingTransactionFilter', params, env.ctx.key);
}
