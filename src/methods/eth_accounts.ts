import { positional } from './params.js';

/** The relay holds no user keys. */
export async function eth_accounts(params: unknown[]): Promise<string[]> {
  positional(params, 0, 0);
  return [];
}
