import { positional } from './params.js';

/** The ledger charges one network gas price; there is no tip. */
export async function eth_maxPriorityFeePerGas(params: unknown[]): Promise<string> {
  positional(params, 0, 0);
  return '0x0';
}
