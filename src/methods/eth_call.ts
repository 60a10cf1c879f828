import { contractCall } from '../ledger/call.js';
import { callRequest } from './callRequest.js';
import { blockNumberOrTagOrHash, positional } from './params.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: POST /api/v1/contracts/call {block, estimate:false}; a block given by hash first costs
 * GET /api/v1/blocks/{hash} (cached). Head tags run against the newest state.
 */
export async function eth_call(params: unknown[], env: MethodEnv): Promise<string> {
  const [tx, ref] = positional(params, 1, 2);
  const block = blockNumberOrTagOrHash(ref, 1);
  let at = 'latest';
  if ('hash' in block) at = `0x${(await env.reads.requireBlock(block)).number.toString(16)}`;
  else if ('number' in block) at = `0x${block.number.toString(16)}`;
  else if (block.tag === 'earliest') at = 'earliest';
  return contractCall(env.reads.mirror, callRequest(tx, at, false, env.ledger.maxGas));
}
