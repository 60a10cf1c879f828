import { toQuantity } from 'ethers/utils';
import { contractCall, estimateToQuantity } from '../ledger/call.js';
import { accessListGas } from '../ledger/convert.js';
import { callRequest } from './callRequest.js';
import { blockNumberOrTagOrHash, positional } from './params.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: POST /api/v1/contracts/call {estimate:true}; the mirror node estimates against the newest state only, and
 * without the call's access list, whose gas (EIP-2930) is added here as geth's estimate includes it: the relay's
 * precheck counts it, so an estimate without it would be refused when sent.
 */
export async function eth_estimateGas(params: unknown[], env: MethodEnv): Promise<string> {
  const [tx, ref] = positional(params, 1, 2);
  blockNumberOrTagOrHash(ref, 1);
  const estimate = BigInt(estimateToQuantity(await contractCall(env.reads.mirror, callRequest(tx, 'latest', true, env.ledger.maxGas))));
  return toQuantity(estimate + accessListGas(accessListOf(tx)));
}

/** The call's access list as far as it is well formed; anything else adds nothing (the mirror node ignored it anyway). */
function accessListOf(tx: unknown): Array<{ storageKeys: readonly string[] }> {
  const list = (tx as { accessList?: unknown } | null)?.accessList;
  if (!Array.isArray(list)) return [];
  return list.map((entry) => {
    const keys = (entry as { storageKeys?: unknown } | null)?.storageKeys;
    return { storageKeys: Array.isArray(keys) ? keys : [] };
  });
}
