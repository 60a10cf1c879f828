import { positional } from './params.js';

/** Blocks come from consensus nodes, not mining: no hashes are computed. */
export async function eth_hashrate(params: unknown[]): Promise<string> {
  positional(params, 0, 0);
  return '0x0';
}
