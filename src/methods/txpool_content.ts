import { positional } from './params.js';
import { byNonce, poolTransaction, type PoolTransaction } from './txpool.js';
import type { MethodEnv } from './types.js';

/** This relay's transactions awaiting their consensus receipt, by sender and nonce. No mirror-node request. */
export async function txpool_content(params: unknown[], env: MethodEnv) {
  positional(params, 0, 0);
  const bySender = new Map<string, PoolTransaction[]>();
  for (const tx of (await env.pending.all()).map(poolTransaction)) bySender.set(tx.from, [...(bySender.get(tx.from) ?? []), tx]);
  return { pending: Object.fromEntries([...bySender].map(([from, txs]) => [from, byNonce(txs)])), queued: {} };
}
