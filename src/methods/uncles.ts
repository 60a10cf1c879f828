/** The ledger has no uncles: what an Ethereum node on a chain without them answers about a block's uncles. */
import type { MirrorBlock } from '../ledger/reads.js';
import { count } from './params.js';

/** An existing block has no uncles; an unknown block is null. */
export function uncleCount(block: MirrorBlock | null): string | null {
  return block ? '0x0' : null;
}

/** There is no uncle at any index; the index is still checked. */
export function uncleAt(index: unknown): null {
  count(index, 'uncle index');
  return null;
}
