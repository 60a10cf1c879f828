import { GatewayError } from '../errors.js';
import { toErrorObject, type RpcErrorObject, type RpcOutcome } from './jsonrpc.js';

/**
 * Codes some nodes use that Ethereum clients do not read as the gateway means them. EIP-1474's -32004 "method not
 * supported" is what ethers and web3.js know as -32601; a parse error from the upstream is about the gateway's own
 * request, not the client's, so it is an internal error.
 */
const CODE_MAP = new Map<number, number>([
  [-32004, -32601],
  [-32700, -32603],
]);

/** An object that looks like a JSON-RPC request: some nodes echo the request they received in `error.data`. */
function echoesRequest(data: unknown, depth = 0): boolean {
  if (typeof data === 'string') return data.includes('"jsonrpc"') || data.includes('"method"');
  if (data === null || typeof data !== 'object') return false;
  // Deeper than any node's error detail: drop rather than walk it.
  if (depth > 8) return true;
  if (Array.isArray(data)) return data.some((d) => echoesRequest(d, depth + 1));
  const obj = data as Record<string, unknown>;
  return 'jsonrpc' in obj || ('method' in obj && 'params' in obj) || Object.values(obj).some((d) => echoesRequest(d, depth + 1));
}

function upstreamError(error: { code?: unknown; message?: unknown; data?: unknown }): RpcErrorObject {
  const code = Number.isSafeInteger(error.code) ? (error.code as number) : -32603;
  const out: RpcErrorObject = { code: CODE_MAP.get(code) ?? code, message: typeof error.message === 'string' ? error.message : 'upstream error' };
  // Revert data (a hex string) and structured details pass on; the gateway's own request (its ids, its params) does not.
  if (error.data !== undefined && !echoesRequest(error.data)) out.data = error.data;
  return out;
}

/** One upstream JSON-RPC response as the outcome the client gets (with its own id, put on by the caller). */
export function fromUpstream(reply: unknown): RpcOutcome {
  const r = reply as { result?: unknown; error?: unknown };
  if (r && typeof r === 'object' && r.error && typeof r.error === 'object') return { error: upstreamError(r.error) };
  if (r && typeof r === 'object' && 'result' in r) return { result: r.result };
  return { error: toErrorObject(new GatewayError('UPSTREAM_UNAVAILABLE', 'upstream answer is not JSON-RPC')) };
}
