import { rawBlock, type TransactionFields } from '../ledger/rawEncoding.js';
import { blockNumberOrTagOrHash, positional } from './params.js';
import { blockObject } from './shared.js';
import type { MethodEnv } from './types.js';

/** The block as RLP, its transactions' envelopes included; `0x` for an unknown block, as the official relay answers. Mirror: as eth_getBlockByNumber / ByHash with full transactions. */
export async function debug_getRawBlock(params: unknown[], env: MethodEnv): Promise<string> {
  const [ref] = positional(params, 1, 1);
  const block = await blockObject(env, await env.reads.resolveBlock(blockNumberOrTagOrHash(ref, 0)), true);
  return block ? rawBlock({ ...block, transactions: block.transactions as TransactionFields[] }) : '0x';
}
