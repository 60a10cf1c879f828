import { rawIds } from './jsonScan.js';
import { GatewayError, type CatalogueEntry, type ErrorName } from '../errors.js';

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
  | { kind: 'error'; error: RpcErrorObject; copies?: number };

/**
 * How a batch past the limit is refused: by default one error object; `official` (the ledger relay) as the official
 * relay's koaJsonRpc does, an array with one copy of its -32203 error per request, here at most REFUSAL_COPIES_MAX.
 * `official` also refuses a body that is JSON but neither an object nor an array with -32700, as that relay does.
 */
export type BatchRefusal = 'default' | 'official';
/** Bounds the answer to a huge refused batch (a 5 MiB body holds 2.6 million `1,` entries). */
const REFUSAL_COPIES_MAX = 10_000;

export function errorObject(name: ErrorName, detail?: string | readonly string[], data?: unknown): RpcErrorObject {
  return toErrorObject(new GatewayError(name, detail, data));
}

/**
 * The error as a client sees it. Its catalogue entry (for the HTTP status) and an internal cause (for the log line)
 * ride along unserialised (not enumerable).
 */
export function toErrorObject(err: GatewayError): RpcErrorObject {
  const obj: RpcErrorObject = err.data === undefined ? { code: err.rpcCode, message: err.message } : { code: err.rpcCode, message: err.message, data: err.data };
  Object.defineProperty(obj, 'entry', { value: err.entry, enumerable: false });
  if (err.internal) Object.defineProperty(obj, 'internal', { value: err.internal, enumerable: false });
  return obj;
}

/** The catalogue entry of an error object `toErrorObject` made; none for an error that came from elsewhere (an upstream). */
export function catalogueEntryOf(error: RpcErrorObject): CatalogueEntry | undefined {
  return (error as { entry?: CatalogueEntry }).entry;
}

/** The internal cause `toErrorObject` kept on an error object, if any. */
export function internalOf(error: RpcErrorObject): string | undefined {
  return (error as { internal?: string }).internal;
}

/** A number that JSON.parse would round: read the id's text from the body to echo it exactly. */
function hasUnsafeNumericId(value: unknown): boolean {
  const check = (v: unknown) => {
    const id = (v as { id?: unknown } | null)?.id;
    return typeof id === 'number' && !Number.isSafeInteger(id);
  };
  return Array.isArray(value) ? value.some(check) : check(value);
}

function rawIdOf(obj: Record<string, unknown>, exact: string | undefined): RawId | undefined | false {
  if (!Object.prototype.hasOwnProperty.call(obj, 'id')) return undefined;
  const id = obj.id;
  if (id === null || typeof id === 'string') return JSON.stringify(id);
  if (typeof id === 'number') return Number.isSafeInteger(id) || exact === undefined ? JSON.stringify(id) : exact;
  return false;
}

function toEntry(value: unknown, exactId: string | undefined): Entry {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { invalid: 'null', error: errorObject('INVALID_REQUEST', 'each request must be an object') };
  }
  const obj = value as Record<string, unknown>;
  const id = rawIdOf(obj, exactId);
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

export function parseBody(text: string, maxBatch: number, batchRefusal: BatchRefusal = 'default'): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'error', error: errorObject('PARSE_ERROR') };
  }
  const exact = hasUnsafeNumericId(value) ? rawIds(text) : undefined;
  // The spec makes a lone non-object an Invalid Request (-32600); the official relay answers it -32700 (its koaJsonRpc
  // parses bodies strictly, taking only an object or an array as JSON), and its acceptance suites expect that.
  if (batchRefusal === 'official' && (value === null || typeof value !== 'object')) return { kind: 'error', error: errorObject('NOT_A_REQUEST') };
  if (!Array.isArray(value)) return { kind: 'single', entry: toEntry(value, exact as string | undefined) };
  if (value.length === 0) return { kind: 'error', error: errorObject('EMPTY_BATCH') };
  if (value.length > maxBatch) {
    if (batchRefusal === 'default') return { kind: 'error', error: errorObject('BATCH_TOO_LARGE', `at most ${maxBatch} calls per batch`) };
    const error = errorObject('LEDGER_BATCH_TOO_LARGE', [String(value.length), String(maxBatch)]);
    return { kind: 'error', error, copies: Math.min(value.length, REFUSAL_COPIES_MAX) };
  }
  const ids = exact as Array<string | undefined> | undefined;
  return { kind: 'batch', entries: value.map((v, i) => toEntry(v, ids?.[i])) };
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

/**
 * A result that is already JSON text (a final ledger answer kept serialised, an EVM upstream's result as it came):
 * written into the response as it is.
 */
export class RawJson {
  constructor(readonly text: string) {}

  /** Anything that serialises an outcome the ordinary way gets the same JSON. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** A result as a value, whether it came as one or as JSON text. */
export function plainResult(result: unknown): unknown {
  return result instanceof RawJson ? result.toJSON() : result;
}

export function serializeResponse(id: RawId, outcome: RpcOutcome): string {
  if ('error' in outcome) return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(outcome.error)}}`;
  const result = outcome.result instanceof RawJson ? outcome.result.text : JSON.stringify(outcome.result ?? null);
  return `{"jsonrpc":"2.0","id":${id},"result":${result}}`;
}

/**
 * Serializes an error that ends the request (401, 403, 429, 413): one error object, with the request's id when the
 * body was a single call. A refused batch gets one error, not one per member, so a refusal never costs more than the
 * request did.
 */
export function serializeEdgeError(parsed: ParsedBody | undefined, error: RpcErrorObject): string {
  return serializeResponse(replyIdOf(parsed), { error });
}
