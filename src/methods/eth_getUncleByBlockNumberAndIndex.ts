import { blockNumberOrTag, positional } from './params.js';
import { uncleAt } from './uncles.js';

/** No mirror-node request: there are no uncles. */
export async function eth_getUncleByBlockNumberAndIndex(params: unknown[]): Promise<null> {
  const [ref, index] = positional(params, 0, 2);
  blockNumberOrTag(ref, 0);
  return uncleAt(index);
}
