/**
 * The ledger has no uncles. Answered as the official relay answers (its BlockService): no block is looked up, so any
 * block, known or not, has `0x0` uncles and none at any index; its params are optional, and checked when sent.
 */
import { count } from './params.js';

export const UNCLE_COUNT = '0x0';

/** There is no uncle at any index; an index that is sent is still checked. */
export function uncleAt(index: unknown): null {
  if (index !== undefined) count(index, 1);
  return null;
}
