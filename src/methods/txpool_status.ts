import { toQuantity } from 'ethers/utils';
import { positional } from './params.js';
import type { MethodEnv } from './types.js';

/** How many of this relay's transactions await their consensus receipt; none is ever queued. No mirror-node request. */
export async function txpool_status(params: unknown[], env: MethodEnv) {
  positional(params, 0, 0);
  return { pending: toQuantity((await env.pending.all()).length), queued: '0x0' };
}
