import { hash32, positional } from './params.js';
import { uncleAt } from './uncles.js';

/** No mirror-node request: there are no uncles. */
export async function eth_getUncleByBlockHashAndIndex(params: unknown[]): Promise<null> {
  const [hash, index] = positional(params, 0, 2);
  if (hash !== undefined) hash32(hash, 0);
  return uncleAt(index);
}
