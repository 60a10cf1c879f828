import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { GatewayError } from '../errors.js';
import { endInBurst } from './burstWrites.js';

/** Errors before an API is known (unknown host or path) are plain JSON: `{"error":{"code","message"}}`. */
export function writeJsonError(res: ServerResponse, err: GatewayError): void {
  const body = jsonErrorBody(err);
  res.writeHead(err.http, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...err.headers });
  endInBurst(res, body);
}

/** The same error as a whole HTTP/1.1 answer, for a socket no ServerResponse owns (a refused upgrade or connection); the connection closes after it. */
export function rawJsonError(err: GatewayError): string {
  const body = jsonErrorBody(err);
  const headers = Object.entries(err.headers ?? {}).map(([h, v]) => `${h}: ${v}\r\n`).join('');
  return `HTTP/1.1 ${err.http} ${STATUS_CODES[err.http] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`;
}

function jsonErrorBody(err: GatewayError): string {
  return JSON.stringify({ error: { code: err.entry.graphql, message: err.message } });
}
