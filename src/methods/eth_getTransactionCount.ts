import { toQuantity } from '../ledger/convert.js';
import { address, blockNumberOrTagOrHash, positional } from './params.js';
import { stateTimestamp } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: GET /api/v1/accounts/{address} (ethereum_nonce) for the current nonce; at an older block the sender's last
 * contract result up to then, GET /api/v1/contracts/results?from={address}&timestamp=lte:{block end}&limit=1&order=desc.
 */
export async function eth_getTransactionCount(params: unknown[], env: MethodEnv): Promise<string> {
  const [addr, ref] = positional(params, 1, 2);
  const who = address(addr, 'address');
  const at = await stateTimestamp(env, blockNumberOrTagOrHash(ref));
  if (at === undefined) return toQuantity((await env.reads.account(who))?.ethereum_nonce ?? 0);
  const body = await env.reads.mirror.get<{ results: Array<{ nonce: number | null }> }>(
    `/api/v1/contracts/results?from=${who}&timestamp=lte:${at}&limit=1&order=desc`,
  );
  const last = body?.results?.[0];
  return toQuantity(last?.nonce === null || last?.nonce === undefined ? 0 : last.nonce + 1);
}
