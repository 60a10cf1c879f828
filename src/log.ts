import pino, { type Logger } from 'pino';
/** Key-shaped strings (`pk_...`) are masked wherever they slip into a message. */
const KEY_PATTERN = /\b(pk_[a-z]+_)[A-Za-z0-9_-]{8,}/g;
/**
 * In free text (an upstream error echoing a URL) a path-auth segment can stand anywhere, so every `/v1/<segment>`
 * is masked; masking `/api/v1/accounts` there too costs a log reader little. Request paths use `redactPath`.
 */
const PATH_KEY_PATTERN = /\/v1\/(?!graphql(?:[/?\s"']|$))[^/?\s"']+/g;

export function redactText(text: string): string {
  return text.replace(PATH_KEY_PATTERN, '/v1/***').replace(KEY_PATTERN, '$1***');
}

/** Every string in a log object, at any depth, is scrubbed; errors become plain objects so their text is too. */
function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) {
    const { name, message, stack, cause } = value;
    return { type: name, message: redactText(message), stack: stack && redactText(stack), ...(cause === undefined ? {} : { cause: scrub(cause, depth + 1) }) };
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, depth + 1)]));
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization'], censor: '***' },
      formatters: { level: (label) => ({ level: label }), log: (object) => scrub(object) as Record<string, unknown> },
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
