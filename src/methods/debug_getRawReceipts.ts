import { hexlify } from 'ethers/utils';
import { encodeReceipt } from '../ledger/receipts.js';
import { trieReceipt } from '../ledger/blocks.js';
import { officialBlockNumberOrTagOrHash, positional } from './params.js';
import type { MethodEnv } from './types.js';

/**
 * The block's receipts in their EIP-2718 binary form, as its receipts root commits to them; `[]` for an unknown
 * block, as the official relay answers. Mirror: the block and its contents (cached).
 */
export async function debug_getRawReceipts(params: unknown[], env: MethodEnv): Promise<string[]> {
  const [ref] = positional(params, 1, 1);
  const block = await env.reads.resolveBlock(officialBlockNumberOrTagOrHash(ref, 0));
  if (!block) return [];
  return (await env.reads.blockContents(block)).txs.map((tx) => hexlify(encodeReceipt(trieReceipt(tx))));
}
