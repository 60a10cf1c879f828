import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors.js';

const EMPTY = Buffer.alloc(0);

/**
 * How much of a keyed caller's body past the limit is read and dropped before the refusal is sent. Closing the
 * connection on a client still sending makes its socket reset, so it sees `ECONNRESET`/`EPIPE` instead of the answer
 * (the official relay's compliance suite posts 44 MB); read to its end, the refusal arrives and the close is clean.
 * Past this, or past the server's requestTimeoutMs, the client is not waited for.
 */
export const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Reads a request body, refusing one past the limit (declared by Content-Length or found in the stream) once it has
 * been read through, and, given `timeoutMs`, refusing a body that has not arrived whole by then.
 */
export function readBody(req: IncomingMessage, limit: number, timeoutMs?: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  // A keyless caller's body (the one given a timeout) is cut at the limit: reading more for a stranger is work that
  // the keyless budget does not price. A keyed caller's refused body is charged to its key.
  const drainLimit = timeoutMs === undefined ? DRAIN_LIMIT_BYTES : limit;
  if (declared > drainLimit) return Promise.reject(bodyTooLarge(req, limit));
  // A small body has usually arrived whole with the headers: taken from the stream's buffer at once, without listeners
  // and the ticks of a flowing stream.
  if (req.complete && req.readableFlowing === null && req.readableLength <= limit) return Promise.resolve(req.read() ?? EMPTY);
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = declared > limit;
    const refuse = (err: GatewayError) => {
      clearTimeout(timer);
      req.removeAllListeners('data');
      reject(err);
    };
    const timer =
      timeoutMs === undefined ? undefined : setTimeout(() => refuse(tooLarge ? bodyTooLarge(req, limit) : bodyTimedOut(timeoutMs)), timeoutMs);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > drainLimit) return refuse(bodyTooLarge(req, limit));
      if (size > limit) {
        // Dropped as it comes: only the refusal is left to send, at the end.
        tooLarge = true;
        chunks = [];
      }
      if (!tooLarge) chunks.push(chunk);
    });
    req.once('end', () => {
      clearTimeout(timer);
      if (tooLarge) reject(bodyTooLarge(req, limit));
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function bodyTooLarge(req: IncomingMessage, limit: number): GatewayError {
  // Whatever still comes is not worth reading; close the connection once the answer is out.
  req.resume();
  return new GatewayError('BODY_TOO_LARGE', `at most ${limit} bytes`, undefined, { connection: 'close' });
}

/** The rest of a slow body is not waited for: the connection closes once the answer is out. */
function bodyTimedOut(timeoutMs: number): GatewayError {
  return new GatewayError('BODY_TIMEOUT', `send the whole body within ${Math.ceil(timeoutMs / 1_000)} s`, undefined, { connection: 'close' });
}
