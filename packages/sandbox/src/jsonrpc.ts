/**
 * JSON-RPC 2.0 framing for the sandbox's devnets, written to geth's conventions (its error codes and words) and
 * kept apart from the gateway's own framing: the gateway forwards to these devnets, and a shared parser would make a
 * framing bug invisible from either side.
 */
import { parse as losslessParse, isLosslessNumber } from 'lossless-json';

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * One request of a body: a call to answer, a notification (no id: run, answer nothing) or one refused without being
 * run (answered with its error, unless it is a notification whose only fault is its params).
 */
export type RpcMessage =
  | { kind: 'call'; id: string; method: string; params: unknown[] }
  | { kind: 'notification'; method: string; params: unknown[] }
  | { kind: 'invalid'; id: string | undefined; error: RpcError };

export type RpcBody = { batch: boolean; messages: RpcMessage[] } | { error: RpcError };

/** geth's messages for framing errors. */
export const PARSE_ERROR: RpcError = { code: -32700, message: 'parse error' };
export const INVALID_REQUEST: RpcError = { code: -32600, message: 'invalid request' };
export const EMPTY_BATCH: RpcError = { code: -32600, message: 'empty batch' };
export const BATCH_TOO_LARGE: RpcError = { code: -32600, message: 'batch too large' };
export const INTERNAL_ERROR: RpcError = { code: -32603, message: 'internal error' };
/**
 * By-name params (`"params": {...}`) are a valid request (JSON-RPC 2.0, section 4.2) that no eth_* method takes:
 * invalid params, as geth (in these words) and anvil answer, not an invalid request.
 */
export const BY_NAME_PARAMS: RpcError = { code: -32602, message: 'non-array args' };

export function methodNotFound(method: string): RpcError {
  return { code: -32601, message: `the method ${method} does not exist/is not available` };
}

/** The id as the JSON text the client sent, so that ids beyond 2^53 come back byte-for-byte. */
function rawId(id: unknown, exact: unknown): string | undefined {
  if (id === null || typeof id === 'string') return JSON.stringify(id);
  if (typeof id === 'number') return isLosslessNumber(exact) ? exact.value : JSON.stringify(id);
  return undefined;
}

function toMessage(value: unknown, exact: unknown): RpcMessage {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { kind: 'invalid', id: 'null', error: INVALID_REQUEST };
  const obj = value as Record<string, unknown>;
  const hasId = Object.prototype.hasOwnProperty.call(obj, 'id');
  const id = hasId ? rawId(obj.id, (exact as Record<string, unknown> | undefined)?.id) : undefined;
  if (hasId && id === undefined) return { kind: 'invalid', id: 'null', error: INVALID_REQUEST };
  const params = obj.params ?? [];
  const byName = typeof params === 'object' && !Array.isArray(params);
  if (obj.jsonrpc !== '2.0' || typeof obj.method !== 'string' || obj.method === '' || !(Array.isArray(params) || byName)) {
    return { kind: 'invalid', id: id ?? 'null', error: INVALID_REQUEST };
  }
  if (byName) return { kind: 'invalid', id, error: BY_NAME_PARAMS };
  return id === undefined ? { kind: 'notification', method: obj.method, params } : { kind: 'call', id, method: obj.method, params };
}

const unsafeId = (v: unknown) => typeof (v as { id?: unknown } | null)?.id === 'number' && !Number.isSafeInteger((v as { id: number }).id);

export function parseRpcBody(text: string, maxBatch: number): RpcBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: PARSE_ERROR };
  }
  // Re-read losslessly only when an id would lose digits.
  const exact = (Array.isArray(value) ? value.some(unsafeId) : unsafeId(value)) ? losslessParse(text) : undefined;
  if (!Array.isArray(value)) return { batch: false, messages: [toMessage(value, exact)] };
  if (value.length === 0) return { error: EMPTY_BATCH };
  if (value.length > maxBatch) return { error: BATCH_TOO_LARGE };
  return { batch: true, messages: value.map((v, i) => toMessage(v, (exact as unknown[] | undefined)?.[i])) };
}

export function response(id: string, outcome: { result: unknown } | { error: RpcError }): string {
  return 'error' in outcome
    ? `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(outcome.error)}}`
    : `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(outcome.result ?? null)}}`;
}
