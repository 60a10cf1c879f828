import { formatBlockTransaction } from '../ledger/format.js';
import { hash32, positional } from './params.js';
import { locateTransaction, partiesOfTx } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: GET /api/v1/contracts/results/{hash} and its block (both cached once found); a hash without a contract
 * result, GET /api/v1/contracts/results/logs?transaction.hash={hash} (a synthetic HTS transaction).
 */
export async function eth_getTransactionByHash(params: unknown[], env: MethodEnv) {
  const [hash] = positional(params, 1, 1);
  const found = await locateTransaction(env, hash32(hash, 'transaction hash'));
  if (!found) return null;
  return formatBlockTransaction(found.tx, await partiesOfTx(env, found.tx), found.block, { gasPriceWeibar: found.price, chainId: env.chainId }, 'by-hash');
}
