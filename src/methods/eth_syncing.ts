import { positional } from './params.js';

/** The relay reads the mirror node's view; there is no local sync to report. */
export async function eth_syncing(params: unknown[]): Promise<false> {
  positional(params, 0, 0);
  return false;
}
