import { toQuantity } from '../ledger/convert.js';
import { address, blockNumberOrTagOrHash, positional } from './params.js';
import { nextNonce } from '../ledger/senderOrder.js';
import { stateTimestamp } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: GET /api/v1/accounts/{address} (ethereum_nonce) for the current nonce; at an older block the sender's last
 * contract result up to then, GET /api/v1/contracts/results?from={address}&timestamp=lte:{block end}&limit=1&order=desc.
 * At "pending", past the transactions this relay submitted that the mirror node does not show yet, as the official
 * relay counts its pending pool.
 */
export async function eth_getTransactionCount(params: unknown[], env: MethodEnv): Promise<string> {
  const [addr, ref] = positional(params, 1, 2);
  const who = address(addr, 0);
  const block = blockNumberOrTagOrHash(ref, 1);
  if ('tag' in block && block.tag === 'pending') {
    const [account, pending] = await Promise.all([env.reads.account(who), env.senders.pending.of(who)]);
    return toQuantity(nextNonce(account?.ethereum_nonce ?? 0, pending));
  }
  const at = await stateTimestamp(env, block);
  if (at === undefined) return toQuantity((await env.reads.account(who))?.ethereum_nonce ?? 0);
  const body = await env.reads.mirror.get<{ results: Array<{ nonce: number | null }> }>(
    `/api/v1/contracts/results?from=${who}&timestamp=lte:${at}&limit=1&order=desc`,
  );
  const last = body?.results?.[0];
  return toQuantity(last?.nonce === null || last?.nonce === undefined ? 0 : last.nonce + 1);
}
