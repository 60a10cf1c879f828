/** The mirror-node stand-in's HTTP plumbing: routes, JSON answers and the real node's `_status` error shape. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, isGatewayError } from '../../errors.js';

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
  /** Returns the 200 body; throws a GatewayError (or an AggregateError of them) for anything else. */
  handle(req: MirrorRequest): unknown;
}

/** Largest POST body: /contracts/call data is at most 262,146 hex digits. */
const MAX_BODY_BYTES = 1 << 20;

interface StatusMessage {
  message: string;
  detail?: string;
  data?: string;
}

function statusMessage(err: GatewayError): StatusMessage {
  const extra = (err.data ?? {}) as { detail?: string; data?: string };
  return {
    message: err.message,
    ...(extra.detail !== undefined ? { detail: extra.detail } : {}),
    ...(extra.data !== undefined ? { data: extra.data } : {}),
  };
}

/** Status and `{"_status":{"messages":[...]}}` body for a thrown error; anything unexpected is a 500. */
export function errorReply(err: unknown): { status: number; body: unknown } {
  const errors = err instanceof AggregateError ? err.errors : [err];
  const known = errors.filter(isGatewayError);
  const list = known.length === errors.length ? known : [new GatewayError('INTERNAL')];
  return { status: list[0].http, body: { _status: { messages: list.map(statusMessage) } } };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Reads a JSON body; throws catalogue errors for a wrong content type, an oversized body or bad JSON. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw new GatewayError('UNSUPPORTED_MEDIA');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new GatewayError('BODY_TOO_LARGE');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new GatewayError('BAD_REQUEST', 'the body is not valid JSON');
  }
}
