import { GatewayError } from '../errors.js';
import type { RpcCall } from './jsonrpc.js';

/** Local EVM nodes are not hardened against extreme parameters, so the gateway bounds what it forwards. */
export const MAX_FEE_HISTORY_BLOCKS = 1024;
export const MAX_LOG_RANGE = 10_000;

function quantity(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value)) return BigInt(value);
  return undefined;
}

export function checkForwardable(call: RpcCall): void {
  const params = Array.isArray(call.params) ? call.params : [];
  if (call.method === 'eth_feeHistory') {
    const count = quantity(params[0]);
    if (count !== undefined && count > BigInt(MAX_FEE_HISTORY_BLOCKS)) {
      throw new GatewayError('INVALID_PARAMS', `eth_feeHistory blockCount is at most ${MAX_FEE_HISTORY_BLOCKS}`);
    }
  }
  if (call.method === 'eth_getLogs') {
    const filter = params[0] as { fromBlock?: unknown; toBlock?: unknown } | undefined;
    const from = quantity(filter?.fromBlock);
    const to = quantity(filter?.toBlock);
    if (from !== undefined && to !== undefined && to - from >= BigInt(MAX_LOG_RANGE)) {
      throw new GatewayError('RANGE_TOO_LARGE', `eth_getLogs spans at most ${MAX_LOG_RANGE} blocks`);
    }
  }
}
