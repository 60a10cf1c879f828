import { rawHeader } from '../ledger/rawEncoding.js';
import { blockNumberOrTagOrHash, positional } from './params.js';
import { blockObject } from './shared.js';
import type { MethodEnv } from './types.js';

/** The block's header as RLP; `0x` for an unknown block, as the official relay answers. Mirror: as eth_getBlockByNumber / ByHash. */
export async function debug_getRawHeader(params: unknown[], env: MethodEnv): Promise<string> {
  const [ref] = positional(params, 1, 1);
  const block = await blockObject(env, await env.reads.resolveBlock(blockNumberOrTagOrHash(ref, 0)), false);
  return block ? rawHeader(block) : '0x';
}
