import { address, positional } from './params.js';
import { byNonce, poolTransaction } from './txpool.js';
import type { MethodEnv } from './types.js';

/** One sender's transactions awaiting their consensus receipt, by nonce. No mirror-node request. */
export async function txpool_contentFrom(params: unknown[], env: MethodEnv) {
  const [sender] = positional(params, 1, 1);
  return { pending: byNonce((await env.pending.from(address(sender, 0))).map(poolTransaction)), queued: {} };
}
