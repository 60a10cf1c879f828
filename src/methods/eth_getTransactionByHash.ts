import { hash32, positional } from './params.js';
import { transactionByHash } from './shared.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: GET /api/v1/contracts/results/{hash} and its block (both cached once found); a hash without a contract
 * result, GET /api/v1/contracts/results/logs?transaction.hash={hash} (a synthetic HTS transaction).
 */
export async function eth_getTransactionByHash(params: unknown[], env: MethodEnv) {
  const [hash] = positional(params, 1, 1);
  return transactionByHash(env, hash32(hash, 0));
}
