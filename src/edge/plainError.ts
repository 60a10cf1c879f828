import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
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

/**
 * Whole answers of the refusals a flood repeats (a keyless handshake past its budget, a connection past its address's
 * bound), made once per kind and kept as bytes: refusing the thousandth costs a write, with no error, JSON or text to
 * build and no string to encode.
 */
export class RawRefusals {
  private readonly made = new Map<string, Buffer>();

  /** The answer of `kind`, which must name everything `make`'s error says (reason, detail, header values). */
  get(kind: string, make: () => GatewayError): Buffer {
    let answer = this.made.get(kind);
    if (answer === undefined) {
      answer = Buffer.from(rawJsonError(make()));
      // Kinds are a handful (a reason and its Retry-After); the bound only keeps a mistake from growing the map.
      if (this.made.size >= 64) this.made.clear();
      this.made.set(kind, answer);
    }
    return answer;
  }
}

/**
 * Answers a socket no ServerResponse owns (a refused upgrade) and closes it at once. The few hundred bytes go out in
 * the write itself, a fresh connection's send buffer being empty, and the client has nothing more to send before its
 * handshake is answered, so the close is a clean one that needs neither a half-close nor the client's.
 */
export function refuseSocket(socket: Duplex, answer: string | Buffer): void {
  socket.write(answer);
  socket.destroy();
}
