/**
 * How filters and subscriptions read a chain: its head, a run of block headers, and logs over a block range. The same
 * three JSON-RPC calls on every chain (eth_blockNumber, eth_getBlockByNumber, eth_getLogs): on the ledger they are the
 * relay's own methods over the mirror node, on EVM chains the upstream pool (several blocks in one batch).
 */
import { GatewayError, isGatewayError } from '../errors.js';
import type { CallContext, RpcBackend } from '../rpc/answer.js';
import { plainResult } from '../rpc/jsonrpc.js';
import type { LogRange } from '../rpc/logRange.js';
import { getLogsParam, type ChainLog } from './criteria.js';
import type { LogCriteria, SeenBlock } from './filterStore.js';
import { MAX_BLOCKS_PER_POLL } from './pollSize.js';

export interface BlockHeader {
  number: string;
  hash: string;
  parentHash: string;
  [field: string]: unknown;
}

export interface ChainSource {
  head(): Promise<number>;
  /** Consecutive headers from `from`, ending early at the first block the chain does not have yet. */
  blocks(from: number, to: number): Promise<BlockHeader[]>;
  /** One block with its transactions in full (undefined if the chain does not have it). */
  blockWithTransactions?(n: number): Promise<BlockHeader | undefined>;
  /** Logs over the range; refused with RANGE_TOO_LARGE past the chain's `checkLogRange`. */
  logs(criteria: Pick<LogCriteria, 'address' | 'topics'>, fromBlock: number | string, toBlock: number | string): Promise<ChainLog[]>;
  /**
   * Refuses a range of blocks wider than the chain's upstream is asked for logs over, naming `method`; tags count as
   * the head. Absent where the chain's own eth_getLogs bounds what it reads (the ledger relay).
   */
  checkLogRange?(method: string, fromBlock: number | string, toBlock: number | string): Promise<void>;
}

export interface Call {
  method: string;
  params: unknown[];
}

/** Answers calls in order; throws a GatewayError for a JSON-RPC error. */
export type Caller = (calls: Call[]) => Promise<unknown[]>;

const hex = (n: number | string) => (typeof n === 'number' ? `0x${n.toString(16)}` : n);

/** A chain read through JSON-RPC calls; with `range`, no logs are asked for over a wider range than it allows. */
export function rpcSource(call: Caller, range?: LogRange): ChainSource {
  const checkLogRange = range && (async (method: string, fromBlock: number | string, toBlock: number | string) => void (await range.check(method, { fromBlock: hex(fromBlock), toBlock: hex(toBlock) })));
  return {
    checkLogRange,
    async head() {
      const [n] = await call([{ method: 'eth_blockNumber', params: [] }]);
      return Number(BigInt(n as string));
    },
    async blocks(from, to) {
      if (to < from) return [];
      const calls = Array.from({ length: to - from + 1 }, (_, i) => ({ method: 'eth_getBlockByNumber', params: [hex(from + i), false] }));
      const found = (await call(calls)) as Array<BlockHeader | null>;
      const end = found.findIndex((b) => !b);
      return (end === -1 ? found : found.slice(0, end)) as BlockHeader[];
    },
    async blockWithTransactions(n) {
      const [block] = await call([{ method: 'eth_getBlockByNumber', params: [hex(n), true] }]);
      return (block ?? undefined) as BlockHeader | undefined;
    },
    async logs(criteria, fromBlock, toBlock) {
      await checkLogRange?.('eth_getLogs', fromBlock, toBlock);
      const [logs] = await call([{ method: 'eth_getLogs', params: [getLogsParam(criteria, hex(fromBlock), hex(toBlock))] }]);
      return logs as ChainLog[];
    },
  };
}

/** A caller over an RpcBackend (the EVM forwarder, or the whole ledger relay for the per-network poller). */
export function backendCaller(backend: RpcBackend, ctx: CallContext): Caller {
  return async (calls) => {
    const outcomes = await backend.handle(
      calls.map((c, i) => ({ id: String(i), method: c.method, params: c.params })),
      ctx,
    );
    return outcomes.map((o, i) => {
      if ('result' in o) return plainResult(o.result);
      throw new GatewayError('UPSTREAM_UNAVAILABLE', `${calls[i].method}: ${o.error.message}`);
    });
  };
}

/** A caller that runs calls concurrently through `run`, letting GatewayErrors through unchanged. */
export function directCaller(run: (call: Call) => Promise<unknown>): Caller {
  return (calls) =>
    Promise.all(
      calls.map(async (c) => {
        try {
          return await run(c);
        } catch (err) {
          if (isGatewayError(err)) throw err;
          throw new GatewayError('INTERNAL');
        }
      }),
    );
}

/** Blocks remembered to notice a reorganisation; deeper ones are beyond what Ethereum clients expect to see undone. */
export const REORG_DEPTH = 32;
/**
 * Logs kept to re-send as removed after a reorganisation, as JSON text, newest blocks first. Past it an older block
 * keeps its hash, so its replacement is still noticed, but not its logs, which are then not re-sent. Without it every
 * filter and feed held the logs of 32 blocks: on a busy chain with a broad filter, tens of megabytes each.
 */
export const RECENT_LOGS_BYTES = 1024 * 1024;

export interface Advance {
  /** Delivered blocks the chain has replaced, oldest first, with the logs that were delivered from them. */
  removed: SeenBlock[];
  /** New blocks on the current chain, in order. */
  added: BlockHeader[];
  /** Logs of the added blocks (when asked for), in chain order. */
  logs: ChainLog[];
  /** What stays known after this step: the kept delivered blocks plus the added ones, bounded. */
  recent: SeenBlock[];
  /** The newest block now delivered. */
  cursor: number;
}

/** The number of a block, or of the block a log is in. */
export const numberOf = (value: { number: string } | { blockNumber: string }) => Number(BigInt('number' in value ? value.number : value.blockNumber));

/**
 * One step of following the chain from `cursor`: the blocks added since (with their logs from `logsOf`, when given),
 * and those delivered before that the chain has since replaced: when the new blocks do not link to the last one
 * delivered (or the head block at the same height has another hash), walk back until a delivered block is still on
 * the chain.
 */
export async function advance(
  source: ChainSource,
  cursor: number,
  recent: SeenBlock[],
  logsOf?: (first: number, last: number) => Promise<ChainLog[]>,
): Promise<Advance> {
  const head = await source.head();
  const kept = [...recent];
  const removed: SeenBlock[] = [];
  // A chain that went back below the cursor is waited out: it is followed again once it grows past it.
  if (head < cursor) return { removed, added: [], logs: [], recent: kept, cursor };
  let from = cursor;
  let added = head > cursor ? await source.blocks(from + 1, Math.min(head, from + MAX_BLOCKS_PER_POLL)) : [];
  const last = kept.at(-1);
  // With no new block, the newest delivered one may still have been replaced at the same height.
  const atHead = last && added.length === 0 && head === last.n ? (await source.blocks(last.n, last.n))[0] : undefined;
  const replaced = last !== undefined && (added.length > 0 ? added[0].parentHash !== last.hash : atHead !== undefined && atHead.hash !== last.hash);
  if (replaced) {
    while (kept.length > 0) {
      const newest = kept.at(-1)!;
      const [current] = await source.blocks(newest.n, newest.n);
      if (current?.hash === newest.hash) break;
      removed.unshift(kept.pop()!);
    }
    from = kept.at(-1)?.n ?? (removed[0]?.n ?? from + 1) - 1;
    added = await source.blocks(from + 1, Math.min(head, from + MAX_BLOCKS_PER_POLL));
  }
  // A reorganisation while the headers were read shows as a broken link: take the linked part now, the rest next time.
  const broken = added.findIndex((h, i) => i > 0 && h.parentHash !== added[i - 1].hash);
  if (broken !== -1) added = added.slice(0, broken);
  let logs: ChainLog[] = [];
  if (logsOf && added.length > 0) {
    logs = await logsOf(numberOf(added[0]), numberOf(added.at(-1)!));
    // Logs of a block that changed after its header was read: leave that block and the rest for the next step.
    const hashes = new Map(added.map((h) => [numberOf(h), h.hash]));
    const stale = logs.find((l) => hashes.has(numberOf(l)) && hashes.get(numberOf(l)) !== l.blockHash);
    if (stale) {
      const cut = numberOf(stale);
      added = added.filter((h) => numberOf(h) < cut);
      logs = logs.filter((l) => numberOf(l) < cut);
    }
  }
  const byBlock = new Map<number, ChainLog[]>();
  for (const l of logs) byBlock.set(numberOf(l), [...(byBlock.get(numberOf(l)) ?? []), l]);
  const seen = added.map((h) => ({ n: numberOf(h), hash: h.hash, ...(logsOf ? { logs: byBlock.get(numberOf(h)) ?? [] } : {}) }));
  return {
    removed,
    added,
    logs,
    recent: withinLogBudget([...kept, ...seen].slice(-REORG_DEPTH)),
    cursor: added.length > 0 ? numberOf(added.at(-1)!) : from,
  };
}

/** A log's size as JSON text: its fixed fields (address, hashes, indices, names) come to about 320 characters. */
const logBytes = (log: ChainLog & { data?: string }) => 320 + (log.data?.length ?? 0) + 68 * log.topics.length;

function withinLogBudget(recent: SeenBlock[]): SeenBlock[] {
  let left = RECENT_LOGS_BYTES;
  for (let i = recent.length - 1; i >= 0; i--) {
    const logs = recent[i].logs as ChainLog[] | undefined;
    if (!logs || logs.length === 0) continue;
    left -= logs.reduce((sum, l) => sum + logBytes(l), 0);
    if (left < 0) recent[i] = { n: recent[i].n, hash: recent[i].hash, logs: [] };
  }
  return recent;
}

/** Logs of replaced blocks as Ethereum nodes re-send them: the same logs, marked removed. */
export function removedLogs(removed: SeenBlock[]): ChainLog[] {
  return removed.flatMap((b) => ((b.logs ?? []) as ChainLog[]).map((l) => ({ ...l, removed: true })));
}
