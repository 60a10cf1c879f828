import { hash32, positional } from './params.js';
import { UNCLE_COUNT } from './uncles.js';

/** No mirror-node request: there are no uncles. */
export async function eth_getUncleCountByBlockHash(params: unknown[]): Promise<string> {
  const [hash] = positional(params, 0, 1);
  if (hash !== undefined) hash32(hash, 0);
  return UNCLE_COUNT;
}
