import { blockNumberOrTag, positional } from './params.js';
import { UNCLE_COUNT } from './uncles.js';

/** No mirror-node request: there are no uncles. */
export async function eth_getUncleCountByBlockNumber(params: unknown[]): Promise<string> {
  const [ref] = positional(params, 0, 1);
  blockNumberOrTag(ref, 0);
  return UNCLE_COUNT;
}
