import { isSyntheticResult } from '../ledger/blocks.js';
import { toQuantity } from '../ledger/convert.js';
import { MAX_PAGES, type ContractResult } from '../ledger/reads.js';
import { address, blockNumberOrTagOrHash, positional } from './params.js';
import { nextNonce } from '../ledger/senderOrder.js';
import { stateTimestamp } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: GET /api/v1/accounts/{address} (ethereum_nonce) for the current nonce; at an older block the sender's last
 * contract result up to then, GET /api/v1/contracts/results?from={address}&timestamp=lte:{block end}&limit=1&order=desc
 * (and, past synthetic rows of HTS transfers the account paid for, which carry no nonce, the results before them).
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
  const last = await lastExecuted(env, `/api/v1/contracts/results?from=${who}&timestamp=lte:${at}&limit=1&order=desc`);
  return toQuantity(last?.nonce === null || last?.nonce === undefined ? 0 : last.nonce + 1);
}

/**
 * The newest listed result that the EVM ran. A mirror node from v0.158 lists HTS transfers made through HAPI among
 * contract results (synthetic rows, blocks.ts), which hold no nonce; the search goes on before them, a page at a time.
 */
async function lastExecuted(env: MethodEnv, first: string): Promise<ContractResult | undefined> {
  let path: string | null = first;
  for (let page = 0; path && page < MAX_PAGES; page++) {
    const body: { results?: ContractResult[]; links?: { next?: string | null } } | null = await env.reads.mirror.get(path);
    const rows = body?.results ?? [];
    const found = rows.find((r) => !isSyntheticResult(r));
    if (found || rows.length === 0) return found;
    path = body?.links?.next?.replace(/([?&])limit=1(&|$)/, '$1limit=100$2') ?? null;
  }
  return undefined;
}
