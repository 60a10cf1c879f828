import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors.js';
import { endInBurst } from './burstWrites.js';

/** Errors before an API is known (unknown host or path) are plain JSON: `{"error":{"code","message"}}`. */
export function writeJsonError(res: ServerResponse, err: GatewayError): void {
  const body = JSON.stringify({ error: { code: err.entry.graphql, message: err.message } });
  res.writeHead(err.http, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...err.headers });
  endInBurst(res, body);
}
