import { parse as losslessParse, isLosslessNumber } from 'lossless-json';
import { GatewayError, type ErrorName } from '../errors.js';

/** An id as the JSON text the client sent, echoed byte-for-byte (`12345678901234567890`, `"a"`, `0`, `null`). */
export type RawId = string;

export interface RpcCall {
  /** Undefined for a notification, which gets no answer. */
  id: RawId | undefined;
  method: string;
  params: unknown;
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcOutcome = { result: unknown } | { error: RpcErrorObject };

export type Entry = { call: RpcCall } | { invalid: RawId; error: RpcErrorObject };

export type ParsedBody =
  | { kind: 'single'; entry: Entry }
  | { kind: 'batch'; entries: Entry[] }
  | { kind: 'error'; error: RpcErrorObject };

export function errorObject(name: ErrorName, detail?: string, data?: unknown): RpcErrorObject {
  return toErrorObject(new GatewayError(name, detail, data));
}

export function toErrorObject(err: GatewayError): RpcErrorObject {
  return err.data === undefined ? { code: err.rpcCode, message: err.message } : { code: err.rpcCode, message: err.message, data: err.data };
}

/** A number that JSON.parse would round: re-read the whole body losslessly to keep the id's text. */
function hasUnsafeNumericId(value: unknown): boolean {
  const check = (v: unknown) => {
    const id = (v as { id?: unknown } | null)?.id;
    return typeof id === 'number' && !Number.isSafeInteger(id);
  };
  return Array.isArray(value) ? value.some(check) : check(value);
}

function rawIdOf(obj: Record<string, unknown>, lossless: Record<string, unknown> | undefined): RawId | undefined | false {
  if (!Object.prototype.hasOwnProperty.call(obj, 'id')) return undefined;
  const id = obj.id;
  if (id === null || typeof id === 'string') return JSON.stringify(id);
  if (typeof id === 'number') {
    const exact = lossless?.id;
    return isLosslessNumber(exact) ? exact.value : JSON.stringify(id);
  }
  return false;
}

function toEntry(value: unknown, lossless: unknown): Entry {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { invalid: 'null', error: errorObject('INVALID_REQUEST', 'each request must be an object') };
  }
  const obj = value as Record<string, unknown>;
  const id = rawIdOf(obj, lossless as Record<string, unknown> | undefined);
  if (id === false) return { invalid: 'null', error: errorObject('INVALID_REQUEST', 'id must be a string, a number or null') };
  const replyId = id ?? 'null';
  if (obj.jsonrpc !== '2.0') return { invalid: replyId, error: errorObject('INVALID_REQUEST', 'jsonrpc must be "2.0"') };
  if (typeof obj.method !== 'string') return { invalid: replyId, error: errorObject('INVALID_REQUEST', 'method must be a string') };
  const params = obj.params;
  if (params !== undefined && (params === null || typeof params !== 'object')) {
    return { invalid: replyId, error: errorObject('INVALID_REQUEST', 'params must be an array or an object') };
  }
  return { call: { id, method: obj.method, params: params ?? [] } };
}

export function parseBody(text: string, maxBatch: number): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'error', error: errorObject('PARSE_ERROR') };
  }
  const lossless = hasUnsafeNumericId(value) ? losslessParse(text) : undefined;
  if (!Array.isArray(value)) return { kind: 'single', entry: toEntry(value, lossless) };
  if (value.length === 0) return { kind: 'error', error: errorObject('EMPTY_BATCH') };
  if (value.length > maxBatch) return { kind: 'error', error: errorObject('BATCH_TOO_LARGE', `at most ${maxBatch} calls per batch`) };
  const exact = lossless as unknown[] | undefined;
  return { kind: 'batch', entries: value.map((v, i) => toEntry(v, exact?.[i])) };
}

/** How many requests a body counts as against the budget: one per call in a batch. */
export function callCount(parsed: ParsedBody): number {
  return parsed.kind === 'batch' ? parsed.entries.length : 1;
}

/** The id to put on an edge error (401, 429) when the body was a single request. */
export function replyIdOf(parsed: ParsedBody | undefined): RawId {
  if (parsed?.kind !== 'single') return 'null';
  const e = parsed.entry;
  return 'call' in e ? (e.call.id ?? 'null') : e.invalid;
}

export function serializeResponse(id: RawId, outcome: RpcOutcome): string {
  return 'error' in outcome
    ? `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(outcome.error)}}`
    : `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(outcome.result ?? null)}}`;
}

/** Serializes an error that ends the request, in the shape of the body that was sent (an array answers an array). */
export function serializeEdgeError(parsed: ParsedBody | undefined, error: RpcErrorObject): string {
  if (parsed?.kind === 'batch') {
    const ids = parsed.entries.map((e) => ('call' in e ? e.call.id : e.invalid)).filter((id): id is RawId => id !== undefined);
    if (ids.length > 0) return `[${ids.map((id) => serializeResponse(id, { error })).join(',')}]`;
  }
  return serializeResponse(replyIdOf(parsed), { error });
}
