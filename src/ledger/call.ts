/**
 * Simulated execution on the mirror node (POST /api/v1/contracts/call), shared by eth_call and eth_estimateGas.
 * A revert becomes error code 3 with the revert data, the way Ethereum nodes report it, so ethers and viem decode it.
 */
import { GatewayError } from '../errors.js';
import { toQuantity } from './convert.js';
import type { MirrorClient } from './mirror.js';

export interface CallRequest {
  block: string;
  data?: string;
  estimate: boolean;
  from?: string;
  gas?: number;
  to?: string;
  value?: number;
}

export async function contractCall(mirror: MirrorClient, req: CallRequest): Promise<string> {
  const { status, body } = await mirror.post('/api/v1/contracts/call', req);
  if (status === 200) return (body?.result as string | undefined)?.toLowerCase() ?? '0x';
  const message = body?._status?.messages?.[0] ?? {};
  if (message.message === 'CONTRACT_REVERT_EXECUTED') {
    const revertData = typeof message.data === 'string' && message.data !== '' ? message.data.toLowerCase() : '0x';
    throw new GatewayError('EXECUTION_REVERTED', message.detail || undefined, revertData);
  }
  // Calling an address without a contract is not an error on Ethereum: there is simply no return data.
  if (status === 404 && !req.estimate) return '0x';
  if (status >= 400 && status < 500 && status !== 404) {
    const why = [message.message, message.detail].filter(Boolean).join(': ') || `HTTP ${status}`;
    // Mirror nodes that cannot simulate a creation (no `to`) leave the client one way out: naming the gas itself.
    if (req.estimate && req.to === undefined) {
      throw new GatewayError('INVALID_PARAMS', `the mirror node could not estimate this contract creation (${why}); send it with an explicit gas limit`);
    }
    throw new GatewayError('INVALID_PARAMS', `mirror node rejected the call: ${why}`);
  }
  throw new GatewayError('MIRROR_UNAVAILABLE', `contracts/call answered HTTP ${status}${message.message ? `: ${message.message}` : ''}`);
}

/** The mirror node's estimate is a 32-byte word; Ethereum wants a quantity. */
export function estimateToQuantity(result: string): string {
  return toQuantity(BigInt(result === '0x' ? 0 : result));
}
