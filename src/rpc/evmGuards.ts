import { GatewayError } from '../errors.js';
import type { RpcCall } from './jsonrpc.js';

/** Local EVM nodes are not hardened against extreme parameters, so the gateway bounds what it forwards. */
export const MAX_FEE_HISTORY_BLOCKS = 1024;
/** No Ethereum method takes parameters nested this deep; deeper ones would only exhaust the stack of whoever serializes them. */
export const MAX_PARAMS_DEPTH = 32;

/** Without recursion, so the check itself cannot overflow the stack. */
function deeperThan(value: unknown, max: number): boolean {
  // Most params are a list of numbers, strings and flags: nothing to walk.
  if (Array.isArray(value) && value.every(isScalar)) return false;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

const isScalar = (value: unknown) => value === null || typeof value !== 'object';

function quantity(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value)) return BigInt(value);
  return undefined;
}

export function checkForwardable(call: RpcCall): void {
  if (deeperThan(call.params, MAX_PARAMS_DEPTH)) throw new GatewayError('INVALID_PARAMS', `params are nested deeper than ${MAX_PARAMS_DEPTH} levels`);
  const params = Array.isArray(call.params) ? call.params : [];
  if (call.method === 'eth_feeHistory') {
    const count = quantity(params[0]);
    if (count !== undefined && count > BigInt(MAX_FEE_HISTORY_BLOCKS)) {
      throw new GatewayError('INVALID_PARAMS', `eth_feeHistory blockCount is at most ${MAX_FEE_HISTORY_BLOCKS}`);
    }
  }
}
