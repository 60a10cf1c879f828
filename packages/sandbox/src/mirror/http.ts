/** The mirror-node stand-in's HTTP plumbing: routes, JSON answers and the real node's `_status` error shape. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MirrorError, bodyTooLarge, badRequest, internalError, unsupportedMedia } from './errors.js';

export interface MirrorRequest {
  /** The path as requested, e.g. `/api/v1/blocks`; `links.next` is built on it. */
  path: string;
  search: URLSearchParams;
  /** The route pattern's captured path segments, URI-decoded. */
  params: string[];
  /** Parsed JSON body (POST only). */
  body?: unknown;
}

export interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  /** Returns the 200 body; throws a MirrorError (or an AggregateError of them) for anything else. */
  handle(req: MirrorRequest): unknown;
}

/** Largest POST body: /contracts/call data is at most 262,146 hex digits. */
const MAX_BODY_BYTES = 1 << 20;

interface StatusMessage {
  message: string;
  detail?: string;
  data?: string;
}

function statusMessage(err: MirrorError): StatusMessage {
  return {
    message: err.message,
    ...(err.extra.detail !== undefined ? { detail: err.extra.detail } : {}),
    ...(err.extra.data !== undefined ? { data: err.extra.data } : {}),
  };
}

/** Status and `{"_status":{"messages":[...]}}` body for a thrown error; anything unexpected is a 500. */
export function errorReply(err: unknown): { status: number; body: unknown } {
  const errors = err instanceof AggregateError ? err.errors : [err];
  const known = errors.filter((e): e is MirrorError => e instanceof MirrorError);
  const list = known.length === errors.length ? known : [internalError()];
  return { status: list[0].status, body: { _status: { messages: list.map(statusMessage) } } };
}

/** Marks a bigint while stringifying; the mark and its quotes are then replaced by the bare digits. */
const BIGINT_MARK = '\u0000bigint:';
const BIGINT_PLACEHOLDER = /"\\u0000bigint:(-?\d+)"/g;

/**
 * JSON with bigints written as exact integers, as the real node writes weibar amounts beyond 2^53. Plain
 * JSON.stringify refuses a bigint, so only a body holding one pays for the replacer.
 */
function stringify(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    const marked = JSON.stringify(body, (_key, value) => (typeof value === 'bigint' ? `${BIGINT_MARK}${value}` : value));
    return marked.replace(BIGINT_PLACEHOLDER, '$1');
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Reads a JSON body; throws the real node's errors for a wrong content type, an oversized body or bad JSON. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw unsupportedMedia();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw bodyTooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw badRequest('Bad request: the body is not valid JSON');
  }
}
