import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors.js';

const EMPTY = Buffer.alloc(0);

/**
 * Reads a request body, refusing early (by Content-Length) or as soon as the stream passes the limit, and, given
 * `timeoutMs`, refusing a body that has not arrived whole by then.
 */
export function readBody(req: IncomingMessage, limit: number, timeoutMs?: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(bodyTooLarge(req, limit));
  // A small body has usually arrived whole with the headers: taken from the stream's buffer at once, without listeners
  // and the ticks of a flowing stream.
  if (req.complete && req.readableFlowing === null && req.readableLength <= limit) return Promise.resolve(req.read() ?? EMPTY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = (err: GatewayError) => {
      clearTimeout(timer);
      req.removeAllListeners('data');
      reject(err);
    };
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => refuse(bodyTimedOut(timeoutMs)), timeoutMs);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        refuse(bodyTooLarge(req, limit));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => {
      clearTimeout(timer);
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function bodyTooLarge(req: IncomingMessage, limit: number): GatewayError {
  // The rest of the body is not worth reading; close the connection once the answer is out.
  req.resume();
  return new GatewayError('BODY_TOO_LARGE', `at most ${limit} bytes`, undefined, { connection: 'close' });
}

/** The rest of a slow body is not waited for: the connection closes once the answer is out. */
function bodyTimedOut(timeoutMs: number): GatewayError {
  return new GatewayError('BODY_TIMEOUT', `send the whole body within ${Math.ceil(timeoutMs / 1_000)} s`, undefined, { connection: 'close' });
}
