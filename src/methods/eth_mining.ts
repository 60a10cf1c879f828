import { positional } from './params.js';

/** Blocks come from consensus nodes, not mining. */
export async function eth_mining(params: unknown[]): Promise<false> {
  positional(params, 0, 0);
  return false;
}
