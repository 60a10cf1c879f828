import { contractCall, estimateToQuantity } from '../ledger/call.js';
import { callRequest } from './callRequest.js';
import { blockNumberOrTagOrHash, positional } from './params.js';
import type { MethodEnv } from './types.js';

/** Mirror: POST /api/v1/contracts/call {estimate:true}; the mirror node estimates against the newest state only. */
export async function eth_estimateGas(params: unknown[], env: MethodEnv): Promise<string> {
  const [tx, ref] = positional(params, 1, 2);
  blockNumberOrTagOrHash(ref, 1);
  return estimateToQuantity(await contractCall(env.reads.mirror, callRequest(tx, 'latest', true, env.ledger.maxGas)));
}
