import { toQuantity } from '../ledger/convert.js';
import { positional } from './params.js';
import { gasPriceWeibar } from './shared.js';
import type { MethodEnv } from './types.js';

/** Mirror: GET /api/v1/network/fees (cached briefly). */
export async function eth_gasPrice(params: unknown[], env: MethodEnv): Promise<string> {
  positional(params, 0, 0);
  return toQuantity(await gasPriceWeibar(env));
}
