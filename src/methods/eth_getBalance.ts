import { tinybarToWeibar, toQuantity } from '../ledger/convert.js';
import { address, blockNumberOrTagOrHash, positional } from './params.js';
import { stateTimestamp } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: GET /api/v1/accounts/{address} for the current balance; at an older block
 * GET /api/v1/balances?account.id={address}&timestamp=lte:{block end}. Tinybar become weibar; no account is 0.
 */
export async function eth_getBalance(params: unknown[], env: MethodEnv): Promise<string> {
  const [addr, ref] = positional(params, 1, 2);
  const who = address(addr, 0);
  const at = await stateTimestamp(env, blockNumberOrTagOrHash(ref, 1));
  if (at === undefined) {
    const account = await env.reads.account(who);
    return toQuantity(tinybarToWeibar(account?.balance?.balance ?? 0));
  }
  const body = await env.reads.mirror.get<{ balances: Array<{ balance: number | bigint }> }>(
    `/api/v1/balances?account.id=${who}&timestamp=lte:${at}&limit=1&order=desc`,
    { exactNumbers: true },
  );
  return toQuantity(tinybarToWeibar(body?.balances?.[0]?.balance ?? 0));
}
