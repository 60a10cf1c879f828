import pino, { type Logger } from 'pino';
import { redactPath } from './edge/route.js';

/** Key-shaped strings (`pk_...` and long opaque tokens after /v1/) are masked wherever they slip into a message. */
const KEY_PATTERN = /\b(pk_[a-z]+_)[A-Za-z0-9_-]{8,}/g;

export function redactText(text: string): string {
  return redactPath(text).replace(KEY_PATTERN, '$1***');
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization'], censor: '***' },
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        // Upstream errors can echo URLs with keys in them; every string argument is scrubbed on its way out.
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    destination as pino.DestinationStream | undefined,
  );
}
