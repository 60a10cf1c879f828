import { toQuantity } from '../ledger/convert.js';
import { positional } from './params.js';
import type { MethodEnv } from './types.js';

/** Mirror: GET /api/v1/blocks?limit=1&order=desc (cached for relay.latestCacheMs). */
export async function eth_blockNumber(params: unknown[], env: MethodEnv): Promise<string> {
  positional(params, 0, 0);
  return toQuantity((await env.reads.latestBlock()).number);
}
