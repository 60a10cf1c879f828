import { positional } from './params.js';
import type { MethodEnv } from './types.js';

/** The chain id in decimal, answered in-process. */
export async function net_version(params: unknown[], env: MethodEnv): Promise<string> {
  positional(params, 0, 0);
  return String(env.chainId);
}
