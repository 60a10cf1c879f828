import { rawTransaction } from '../ledger/rawEncoding.js';
import { hash32, positional } from './params.js';
import { transactionByHash } from './shared.js';
import type { MethodEnv } from './types.js';

/** The transaction's signed envelope, rebuilt from what eth_getTransactionByHash answers; `0x` for an unknown hash, as the official relay answers. Mirror: as eth_getTransactionByHash. */
export async function debug_getRawTransaction(params: unknown[], env: MethodEnv): Promise<string> {
  const [hash] = positional(params, 1, 1);
  const tx = await transactionByHash(env, hash32(hash, 0));
  return tx ? rawTransaction(tx) : '0x';
}
