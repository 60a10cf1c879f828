import pino, { type Logger } from 'pino';
/** Key-shaped strings (`pk_...`) are masked wherever they slip into a message. */
const KEY_PATTERN = /\b(pk_[a-z]+_)[A-Za-z0-9_-]{8,}/g;
/**
 * In free text (an upstream error echoing a URL) a path-auth segment can stand anywhere, so every `/v1/<segment>` is
 * masked, except the REST API's own `/api/v1/<resource>` (never a key) and `/v1/graphql`: a log reader needs the
 * resource. Request paths are redacted by `redactPath` first; this pass must not undo its care.
 */
const PATH_KEY_PATTERN = /(?<!\/api)\/v1\/(?!graphql(?:[/?\s"']|$))[^/?\s"']+/g;

/** Both patterns need one of these markers: a string without them cannot hold a key and is not run through them. */
function mayHoldKey(text: string): boolean {
  return text.includes('pk_') || text.includes('/v1/');
}

export function redactText(text: string): string {
  if (!mayHoldKey(text)) return text;
  return text.replace(PATH_KEY_PATTERN, '/v1/***').replace(KEY_PATTERN, '$1***');
}

/** Fields of the request line whose values the gateway makes itself (names from the config, key ids, numbers). */
const GATEWAY_FIELDS = new Set(['api', 'network', 'keyId', 'status', 'ms', 'calls', 'httpMethod']);

/**
 * Every string in a log object, at any depth, is scrubbed; errors become plain objects so their text is too. An object
 * or array is copied only when something in it changed, which for a request line is almost never.
 */
function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) {
    const { name, message, stack, cause } = value;
    return { type: name, message: redactText(message), stack: stack && redactText(stack), ...(cause === undefined ? {} : { cause: scrub(cause, depth + 1) }) };
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const scrubbed = scrub(value[i], depth + 1);
      if (scrubbed !== value[i]) (copy ??= [...value])[i] = scrubbed;
    }
    return copy ?? value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const object = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const k of Object.keys(object)) {
    const v = object[k];
    if (v === null || typeof v === 'number' || typeof v === 'boolean' || (depth === 0 && GATEWAY_FIELDS.has(k))) continue;
    const scrubbed = scrub(v, depth + 1);
    if (scrubbed !== v) (copy ??= { ...object })[k] = scrubbed;
  }
  return copy ?? object;
}

/**
 * Lines gathered into blocks before they reach sonic-boom, whose `write` re-measures its whole pending text on every
 * call (about 4 us a line, the largest part of a request line's cost); handed over a block at a time it costs that once
 * per block. A block goes when it is full or BLOCK_MS after its first line, whichever is first: a busy gateway writes
 * the lines of many requests at once, a quiet one each line as it happens (BLOCK_MS late at most). Not at the end of
 * each turn of the event loop: forwarding at a few thousand requests a second has one or two answers in a turn, and
 * each block written is a system call (`writeString` and sonic-boom's `release` were a tenth of the gateway's
 * forwarding profile).
 */
const BLOCK_MS = 20;

class LineBlocks implements pino.DestinationStream {
  private lines: string[] = [];
  private size = 0;
  private scheduled?: NodeJS.Timeout;
  private readonly handOverNow = () => this.handOver();

  constructor(
    private readonly out: ReturnType<typeof pino.destination>,
    /** A block this long goes at once, without waiting for the turn to end. */
    private readonly fullLength: number,
  ) {}

  write(line: string): void {
    this.lines.push(line);
    this.size += line.length;
    if (this.size >= this.fullLength) this.handOver();
    else this.scheduled ??= setTimeout(this.handOverNow, BLOCK_MS).unref();
  }

  /** What is gathered goes to sonic-boom, which writes it at once (or after the write in flight). */
  handOver(): void {
    if (this.scheduled) clearTimeout(this.scheduled);
    this.scheduled = undefined;
    if (this.size === 0) return;
    this.out.write(this.lines.join(''));
    this.lines = [];
    this.size = 0;
  }

  flush(cb?: (err?: Error) => void): void {
    this.handOver();
    this.out.flush(cb);
  }

  flushSync(): void {
    this.handOver();
    this.out.flushSync();
  }
}

/** One per destination, so every logger of the process writes whole blocks to it. */
const blocksByDest = new Map<number | string, LineBlocks>();

/**
 * Standard output, written in blocks (once 64 KiB has gathered, or BLOCK_MS after a block's first line) instead of one
 * write per line: a request line no longer costs a system call. Buffered lines are flushed when the process exits
 * (handed to sonic-boom before pino's own exit flush of it runs); a SIGKILL loses at most the lines of the BLOCK_MS it
 * interrupts. A block is written synchronously, as Node writes process.stdout to files and pipes on Linux: an
 * asynchronous write hands each block to the thread pool, and on a busy core that hand-off cost the event loop far
 * more than the write (40-220 us a block, stalls of tens of ms when the woken thread took the core, against 8 us for
 * the write itself; `writeString` under `handOver` was the largest line of the gateway's profile under load).
 */
export function bufferedDestination(dest: number | string = 1): pino.DestinationStream {
  let blocks = blocksByDest.get(dest);
  if (!blocks) {
    if (blocksByDest.size === 0) {
      const handOverAll = () => blocksByDest.forEach((b) => b.handOver());
      process.prependListener('beforeExit', handOverAll);
      process.prependListener('exit', handOverAll);
    }
    blocks = new LineBlocks(pino.destination({ dest, minLength: 0, sync: true }), 64 * 1024);
    blocksByDest.set(dest, blocks);
  }
  return blocks;
}

/** Loggers made by createLogger, with their destination: their request lines take `logRequest`'s short path. */
const requestLineDestinations = new WeakMap<Logger, pino.DestinationStream>();

/**
 * The one line per request, `logger.info(fields, 'request')`. For a logger made by createLogger it is written here as
 * pino would write it (level, time, the fields scrubbed, msg), field by field into one string: the request line was
 * pino's largest cost on the hot path, and scrubbing a copy of the fields before one JSON.stringify was the next
 * (`logRequest` and `scrub` at log.ts, 6.7 us of an eth_chainId in the edge profile). Fields under pino's redact
 * paths, values JSON.stringify refuses (cycles, BigInt) and other loggers go through pino itself.
 */
export function logRequest(logger: Logger, fields: Record<string, unknown>): void {
  const destination = requestLineDestinations.get(logger);
  if (!destination || 'req' in fields || 'headers' in fields) return void logger.info(fields, 'request');
  if (!logger.isLevelEnabled('info')) return;
  let line = `{"level":"info","time":${Date.now()}`;
  try {
    for (const name in fields) {
      const json = fieldJson(name, fields[name]);
      if (json !== undefined) line += `,${quotedName(name)}:${json}`;
    }
  } catch {
    return void logger.info(fields, 'request');
  }
  destination.write(`${line},"msg":"request"}\n`);
}

/** A field's value as JSON.stringify would write it inside the line, scrubbed; undefined when it would leave it out. */
function fieldJson(name: string, value: unknown): string | undefined {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return jsonString(GATEWAY_FIELDS.has(name) ? value : redactText(value));
    default:
      return Array.isArray(value) ? jsonArray(value) : JSON.stringify(scrub(value, 1));
  }
}

/**
 * A string as JSON.stringify writes it. Most of a request line's strings (its id, host, path, network, methods) need no
 * escape, and each JSON.stringify call costs more than a look at every character: 9,900 instructions of a cached relay
 * answer went to the line's JSON.stringify calls.
 */
function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // What JSON.stringify escapes: controls, the quote, the backslash, and surrogates (when alone; left to it here).
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** A list (the line's JSON-RPC methods, its internal errors) scrubbed and written as JSON.stringify writes it. */
function jsonArray(values: unknown[]): string {
  let json = '[';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    const item = typeof value === 'string' ? jsonString(redactText(value)) : JSON.stringify(scrub(value, 2));
    // JSON.stringify writes null for what it leaves out of a list (undefined, functions, symbols).
    json += `${i === 0 ? '' : ','}${item ?? 'null'}`;
  }
  return `${json}]`;
}

const quotedNames = new Map<string, string>();

function quotedName(name: string): string {
  let quoted = quotedNames.get(name);
  if (quoted !== undefined) return quoted;
  quoted = JSON.stringify(name);
  // The names are the edge's and its handlers' own, a few dozen; the bound only keeps a mistake from growing it.
  if (quotedNames.size < 256) quotedNames.set(name, quoted);
  return quoted;
}

export function createLogger(level: string, destination: pino.DestinationStream = bufferedDestination()): Logger {
  const logger = pino(
    {
      level,
      base: undefined,
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization'], censor: '***' },
      formatters: { level: (label) => ({ level: label }), log: (object) => scrub(object) as Record<string, unknown> },
      hooks: {
        // Upstream errors can echo URLs with keys in them; every string argument is scrubbed on its way out.
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = redactText(args[i] as string);
          method.apply(this, args);
        },
      },
    },
    destination,
  );
  requestLineDestinations.set(logger, destination);
  return logger;
}
