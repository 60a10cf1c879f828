import { GatewayError } from '../errors.js';
import { blockContext, formatLog, type BlockContext } from '../ledger/format.js';
import { PageBudget, type MirrorBlock, type MirrorLog } from '../ledger/reads.js';
import { address, blockNumberOrTag, hash32, invalidParam, object, positional } from './params.js';
import type { MethodEnv } from './types.js';

/** Each address is its own mirror-node listing: the addresses of one call are bounded (-32602 past it). */
export const MAX_LOG_ADDRESSES = 20;
/** Alternatives (OR) in one topic position; each becomes a query parameter (-32602 past it). */
export const MAX_TOPIC_ALTERNATIVES = 10;
/** Mirror-node pages one call may fetch over all its addresses (-32005 past it). */
export const MAX_LOG_PAGES = 50;
/** Addresses fetched at once, so one call never opens many mirror requests together. */
export const LOG_FETCH_CONCURRENCY = 4;

function addresses(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return [address(value, 'filter.address')];
  if (value.length > MAX_LOG_ADDRESSES) throw new GatewayError('INVALID_PARAMS', `filter.address takes at most ${MAX_LOG_ADDRESSES} addresses`);
  return [...new Set(value.map((a, i) => address(a, `filter.address[${i}]`)))];
}

/** `topicN=` query params; an inner array means any of those topics (repeated param). */
function topicQuery(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (!Array.isArray(value) || value.length > 4) throw new GatewayError('INVALID_PARAMS', 'filter.topics must be an array of at most 4 entries');
  return value
    .map((t, i) => {
      if (t === null) return '';
      const options = Array.isArray(t) ? t : [t];
      if (options.length > MAX_TOPIC_ALTERNATIVES) {
        throw new GatewayError('INVALID_PARAMS', `filter.topics[${i}] takes at most ${MAX_TOPIC_ALTERNATIVES} alternatives`);
      }
      return options.map((o, j) => `&topic${i}=${hash32(o, `filter.topics[${i}]${Array.isArray(t) ? `[${j}]` : ''}`)}`).join('');
    })
    .join('');
}

async function blockRange(filter: Record<string, unknown>, env: MethodEnv): Promise<[MirrorBlock, MirrorBlock] | null> {
  if (filter.blockHash !== undefined && filter.blockHash !== null) {
    if (filter.fromBlock !== undefined || filter.toBlock !== undefined) {
      throw invalidParam(0, 'must have blockHash or fromBlock/toBlock, not both');
    }
    const block = await env.reads.blockByHash(hash32(filter.blockHash, 'filter.blockHash'));
    if (!block) throw new GatewayError('UNKNOWN_BLOCK', String(filter.blockHash));
    return [block, block];
  }
  const fromRef = blockNumberOrTag(filter.fromBlock, 'filter.fromBlock');
  const toRef = blockNumberOrTag(filter.toBlock, 'filter.toBlock');
  // Beside the head rather than after it: with a far mirror node, one round trip less.
  env.reads.readAhead([fromRef, toRef].flatMap((ref) => ('number' in ref ? [ref.number] : [])));
  const latest = await env.reads.latestBlock();
  const numberOf = async (ref: typeof fromRef) =>
    'number' in ref ? ref.number : ref.tag === 'earliest' ? ((await env.reads.earliestBlock())?.number ?? 0) : latest.number;
  const from = await numberOf(fromRef);
  const wanted = await numberOf(toRef);
  // The head may be cached; a block named past it can already be on the mirror node, and then it is the head.
  const head = wanted > latest.number && (await env.reads.blockByNumber(wanted)) ? wanted : latest.number;
  const to = Math.min(wanted, head);
  if (from > head) return null;
  if (from > to) throw new GatewayError('INVALID_PARAMS', `fromBlock ${from} is after toBlock ${to}`);
  // As the official relay compares (CommonService's RANGE_TOO_LARGE): toBlock - fromBlock past the limit, its words.
  const span = env.ctx.key?.plan.maxLogBlocks ?? env.maxLogBlocks;
  if (to - from > span) throw new GatewayError('LOG_RANGE_TOO_LARGE', String(span));
  const [first, last] = await Promise.all([env.reads.blockByNumber(from), env.reads.blockByNumber(to)]);
  if (!first || !last) throw new GatewayError('UNKNOWN_BLOCK', `block ${first ? to : from}`);
  return [first, last];
}

/**
 * Mirror: the range's end blocks (GET /api/v1/blocks/{n}, cached), then per address
 * GET /api/v1/contracts/{address}/results/logs, or without one GET /api/v1/contracts/results/logs, with
 * timestamp=gte/lte of the range and topicN filters, following links.next; the blocks the logs are in (cached).
 * A range of existing blocks is final, so the answer is cached.
 */
export async function eth_getLogs(params: unknown[], env: MethodEnv) {
  const [filterParam] = positional(params, 1, 1);
  const filter = object(filterParam, 0);
  const addrs = addresses(filter.address);
  const topics = topicQuery(filter.topics);
  const range = await blockRange(filter, env);
  if (!range) return [];
  const [first, last] = range;
  const query = `timestamp=gte:${first.timestamp.from}&timestamp=lte:${last.timestamp.to}${topics}&limit=100&order=asc`;
  return env.reads.cache.final(`logs:${first.number}:${last.number}:${addrs.join(',')}:${topics}`, async () => {
    const paths = addrs.length > 0 ? addrs.map((a) => `/api/v1/contracts/${a}/results/logs?${query}`) : [`/api/v1/contracts/results/logs?${query}`];
    const budget = new PageBudget(MAX_LOG_PAGES, () => new GatewayError('LOGS_LIMITED', `at most ${MAX_LOG_PAGES} pages of 100 logs`));
    // Each page is a request of its own to the mirror node: the key pays for every one past the first.
    const paying = env.ctx.charge && (() => (budget.used > 1 ? env.ctx.charge!() : undefined));
    const get = paying && (async (p: string) => (await paying(), env.reads.mirror.get(p)));
    const logs = (await inBatches(paths, LOG_FETCH_CONCURRENCY, (p) => env.reads.collect<MirrorLog>(p, 'logs', budget, get))).flat();
    if (addrs.length > 1) logs.sort((a, b) => (a.timestamp ?? '').localeCompare(b.timestamp ?? '') || a.index - b.index);
    const blocks = new Map<number, BlockContext>();
    for (const n of new Set(logs.map((l) => l.block_number ?? first.number))) {
      const block = await env.reads.blockByNumber(n);
      if (!block) throw new GatewayError('MIRROR_UNAVAILABLE', `log refers to block ${n}, which the mirror node does not have`);
      blocks.set(n, blockContext(block));
    }
    return logs.map((l) =>
      formatLog(l, { hash: l.transaction_hash ?? '', index: l.transaction_index }, blocks.get(l.block_number ?? first.number)!),
    );
  });
}

/** `run` over `items` with at most `limit` in flight, results in order. */
async function inBatches<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
