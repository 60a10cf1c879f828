import { toQuantity } from '../ledger/convert.js';
import { positional } from './params.js';
import type { MethodEnv } from './types.js';

/** Answered in-process: the chain id is configuration. */
export async function eth_chainId(params: unknown[], env: MethodEnv): Promise<string> {
  positional(params, 0, 0);
  return toQuantity(env.chainId);
}
