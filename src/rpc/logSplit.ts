/**
 * eth_getLogs over a block range wider than an upstream serves in one request: the range is cut into spans the
 * upstream takes, each fetched as its own request (a bounded number at once), and the logs joined in block order.
 * A span the upstream still refuses is cut again as its error says: to a hinted range's or a named cap's width where
 * the provider gives one, in halves otherwise.
 */
import { GatewayError } from '../errors.js';
import { RawJson, toErrorObject, type RpcErrorObject, type RpcOutcome } from './jsonrpc.js';

/** A block span, both ends included. */
export interface Span {
  from: number;
  to: number;
}

/**
 * What an upstream's refusal of a span says about how to cut it: into spans of `blocks` (a width the upstream named or
 * hinted; `learn` when it is the upstream's fixed cap, worth starting from next time), or in halves.
 */
export type Cut = { blocks: number; learn: boolean } | 'halve';

/**
 * Providers' words for "this range is too much", as they answer eth_getLogs: Alchemy names a range that works, Infura
 * a range in `data` (and "query returned more than 10000 results"), BSC, Ankr and QuickNode a cap ("exceed maximum block
 * range: 5000", "block range is too wide"), others only refuse (-32005 limit exceeded). Anything else is the client's
 * own error and is answered as it came.
 */
const HINTED_RANGE = /\[\s*(0x[0-9a-f]+)\s*,\s*(0x[0-9a-f]+)\s*\]/i;
const NAMED_CAP = /(?:max(?:imum)? block range|block range (?:limit|is limited to)|limited to a|maximum allowed(?: range)? of|up to a)\D{0,12}?(\d[\d,_]*)(k?)\b/i;
const TOO_MUCH = /range (?:is )?too (?:wide|large|big)|exceed\w*\D{0,20}block range|block range\D{0,20}(?:exceed|limit)|too many (?:blocks|results|logs)|more than [\d,]+ (?:results|logs)|limit exceeded|response size|query timeout|timed out/i;

/** Refusals about the caller's request rate or credits, not the range: cutting the range would only ask more. */
const RATE_LIMITED = /\brate\b|request count|credits|per second|too many requests/i;

/** How to cut `span` after an upstream refused it with `error`; undefined when the error is not about the range. */
export function cutOf(error: RpcErrorObject, span: Span): Cut | undefined {
  const message = error.message ?? '';
  if (RATE_LIMITED.test(message)) return undefined;
  const data = error.data as { from?: unknown; to?: unknown } | undefined;
  const hinted = HINTED_RANGE.exec(message) ?? (typeof data?.from === 'string' && typeof data.to === 'string' ? [, data.from, data.to] : null);
  if (hinted && /^0x[0-9a-f]+$/i.test(hinted[1]!) && /^0x[0-9a-f]+$/i.test(hinted[2]!)) {
    const blocks = Number(BigInt(hinted[2]!)) - Number(BigInt(hinted[1]!)) + 1;
    // The hint is about this span's logs (how many there are here), not a cap of the upstream's.
    if (blocks > 0 && blocks <= span.to - span.from + 1) return { blocks, learn: false };
  }
  const capped = NAMED_CAP.exec(message);
  const cap = capped ? Number(capped[1].replace(/[,_]/g, '')) * (capped[2] ? 1_000 : 1) : 0;
  if (cap > 0) return { blocks: cap, learn: true };
  if (TOO_MUCH.test(message) || error.code === -32005) return 'halve';
  return undefined;
}

/** `span` cut into consecutive spans of at most `blocks` blocks. */
export function spansOf(span: Span, blocks: number): Span[] {
  const out: Span[] = [];
  for (let from = span.from; from <= span.to; from += blocks) out.push({ from, to: Math.min(span.to, from + blocks - 1) });
  return out;
}

/** The spans to ask for instead of `span` after the upstream refused it with `cut`; none when it cannot be cut. */
function recut(span: Span, cut: Cut): Span[] {
  const width = span.to - span.from + 1;
  if (width === 1) return [];
  return spansOf(span, cut !== 'halve' && cut.blocks < width ? cut.blocks : Math.ceil(width / 2));
}

export interface SplitOptions {
  /** Upstream requests in flight at once. */
  concurrency: number;
  /** Bytes of JSON the joined answer may take; past it, LOGS_TOO_LARGE and nothing more is fetched. */
  maxBytes: number;
  /** Asks the upstream for the logs of one span (the caller's filter with that span's bounds). */
  fetch(span: Span): Promise<RpcOutcome>;
  /** Pays for the next request before it is sent (the first is paid by the edge); throws the refusal. */
  charge(): Promise<void>;
  /** Told of a cap an upstream named, so later queries start from it. */
  learned(blocks: number): void;
}

/**
 * The logs of `spans` (consecutive, in order), as one result. The first request goes out unpaid; each further one is
 * charged first. An error the upstream gives that is not about the range, or a one-block span it still refuses, is
 * the call's answer, and nothing more is sent.
 */
export async function fetchSplit(spans: Span[], opts: SplitOptions): Promise<RpcOutcome> {
  const slots = new Slots(opts.concurrency);
  let paid = false;
  let bytes = 0;
  let failed: RpcOutcome | undefined;
  const one = async (span: Span): Promise<string[]> => {
    if (failed) return [];
    const outcome = await slots.run(async () => {
      if (failed) return undefined;
      if (paid) await opts.charge();
      paid = true;
      return opts.fetch(span);
    });
    if (!outcome || failed) return [];
    if ('error' in outcome) {
      const cut = cutOf(outcome.error, span);
      const smaller = cut ? recut(span, cut) : [];
      if (smaller.length === 0) {
        failed = outcome;
        return [];
      }
      if (cut !== 'halve' && cut?.learn) opts.learned(cut.blocks);
      return (await Promise.all(smaller.map(one))).flat();
    }
    const text = outcome.result instanceof RawJson ? outcome.result.text : JSON.stringify(outcome.result);
    // Anything but a list of logs cannot be joined: it is the answer as the upstream gave it.
    if (!text?.trimStart().startsWith('[')) {
      failed = outcome;
      return [];
    }
    bytes += text.length;
    if (bytes > opts.maxBytes) throw new GatewayError('LOGS_TOO_LARGE', `at most ${opts.maxBytes} bytes`);
    return [text];
  };
  try {
    const parts = (await Promise.all(spans.map(one))).flat();
    return failed ?? { result: new RawJson(joinArrays(parts)) };
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    failed = { error: toErrorObject(err) };
    return failed;
  }
}

/** JSON arrays (as text) as one array, their elements in order. */
function joinArrays(arrays: string[]): string {
  // One answer (a query that fit one request) passes as it came, without a copy of what may be megabytes.
  if (arrays.length === 1) return arrays[0];
  const inner = arrays.map((a) => a.trim().slice(1, -1).trim()).filter((a) => a.length > 0);
  return `[${inner.join(',')}]`;
}

/** At most `limit` tasks running; the rest wait in order. */
class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly limit: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((wake) => this.waiting.push(wake));
    else this.running++;
    try {
      return await task();
    } finally {
      const wake = this.waiting.shift();
      if (wake) wake();
      else this.running--;
    }
  }
}
