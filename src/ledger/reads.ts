/**
 * Cached lookups of ledger data on the mirror node. Everything final (blocks, a block's contract results, a
 * contract result that has a block) is cached until evicted; the chain head and the fee schedule briefly; account
 * state (balance, nonce) never, because a client sending transactions back to back needs the current nonce.
 */
import { GatewayError, isGatewayError } from '../errors.js';
import { assembleBlock, blockTxs, isSyntheticResult, type BlockContents, type BlockTx } from './blocks.js';
import type { ReadCache } from './cache.js';
import { toHash32, WEIBAR_PER_TINYBAR } from './convert.js';
import type { MirrorClient } from './mirror.js';
import type { ContractResult, MirrorBlock, MirrorLog, MirrorAccount, BlockRef } from './records.js';

export type { BlockRef, BlockTag, ContractResult, MirrorAccount, MirrorBlock, MirrorLog } from './records.js';

/** The fee schedule changes rarely; re-reading it every 10 s is plenty and keeps eth_gasPrice in-process. */
const FEES_TTL_MS = 10_000;
/** Bound on `links.next` pages followed for one answer (100 rows each). */
export const MAX_PAGES = 50;
/** Results that never executed: an Ethereum node would not have included them in a block. */
const NOT_EXECUTED = new Set(['WRONG_NONCE', 'INVALID_ACCOUNT_ID']);
const MONEY_HEX_FIELDS = ['gas_price', 'max_fee_per_gas', 'max_priority_fee_per_gas'] as const;

/**
 * A block's listed contract results without those that never executed, each hash once. Synthetic rows are left out
 * too: their transactions come from their logs, in the shape the official relay gives them.
 */
export function executedResults(rows: ContractResult[]): ContractResult[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    if (NOT_EXECUTED.has(r.result) || isSyntheticResult(r) || seen.has(r.hash)) return false;
    seen.add(r.hash);
    return true;
  });
}

/** Contract results' monetary fields from tinybar to weibar, in place (a mirror node asked without hbar=false). */
function tinybarResultToWeibar(r: ContractResult): ContractResult {
  for (const field of MONEY_HEX_FIELDS) {
    const value = r[field];
    if (value && value !== '0x') r[field] = `0x${(BigInt(value) * WEIBAR_PER_TINYBAR).toString(16)}`;
  }
  if (r.amount !== null && r.amount !== undefined) r.amount = BigInt(r.amount) * WEIBAR_PER_TINYBAR;
  return r;
}

/** `timestamp`: when the fee schedule (in /network/fees) or the exchange rate (in /network/exchangerate) was set. */
type FeesBody = { fees?: Array<{ gas: number; transaction_type: string }>; timestamp?: string };

/** Consensus timestamps (`<seconds>.<nanos>`, nanos 9 digits as the mirror node writes them) in order. */
function notAfter(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const [as, an = ''] = a.split('.');
  const [bs, bn = ''] = b.split('.');
  return as.length !== bs.length ? as.length < bs.length : as !== bs ? as < bs : an <= bn;
}

/** A block's transactions all fall within one 2 s period of the record stream: its end is before its first one's second plus 3 s. */
const BLOCK_SPAN_BOUND_SECONDS = 3;

/** The gas price in force at `bound`, and when the fee schedule and the exchange rate it comes from were set. */
export interface PriceBy {
  bound: string;
  tinybar: bigint;
  feesSet?: string;
  rateSet?: string;
}

/** The price of `by` as it was at a block's `end`: when the block ended by its bound and neither was set after the end. */
export function priceAtEnd(by: PriceBy | undefined, end: string): bigint | undefined {
  return by && notAfter(end, by.bound) && notAfter(by.feesSet, end) && notAfter(by.rateSet, end) ? by.tinybar : undefined;
}

/** The current fee schedule's gas price, the times it and the exchange rate were set, and the blocks it covers. */
interface FeeState {
  /** The newest block the mirror node was known to have when this was asked for: its changes up to there are in. */
  covers: number;
  read: Promise<{ tinybar: bigint; feesSet?: string; rateSet?: string } | undefined>;
}

/** The gas price two price files give, and when each was set. */
function priceOf(fees: FeesBody | null, rate: FeesBody | null): { tinybar: bigint; feesSet?: string; rateSet?: string } {
  return { tinybar: ethereumFee(fees), feesSet: fees?.timestamp, rateSet: rate?.timestamp };
}

function ethereumFee(body: FeesBody | null): bigint {
  const fee = body?.fees?.find((f) => f.transaction_type === 'EthereumTransaction');
  if (!fee) throw new GatewayError('MIRROR_UNAVAILABLE', 'the mirror node has no EthereumTransaction fee');
  return BigInt(fee.gas);
}

function withHbarFalse(path: string): string {
  return /[?&]hbar=/.test(path) ? path : `${path}${path.includes('?') ? '&' : '?'}hbar=false`;
}

/** Mirror-node pages one call may fetch across all its listings; past them, `error` is thrown. */
export class PageBudget {
  constructor(
    private left: number,
    private readonly error: () => GatewayError,
  ) {}
  /** Pages taken so far. */
  used = 0;
  take(): void {
    if (this.left-- <= 0) throw this.error();
    this.used++;
  }
}

export class LedgerReads {
  /**
   * Mirror nodes from v0.154 answer contract results' monetary fields in weibar when asked with hbar=false, and in
   * tinybar (which loses the sub-tinybar part of what the sender signed) otherwise. The relay asks for weibar; an
   * older node rejects the parameter, and from then on it is asked without and its tinybar converted.
   */
  private hbarParameter = true;

  constructor(
    readonly mirror: MirrorClient,
    readonly cache: ReadCache,
    private readonly latestMs: number,
  ) {}

  /**
   * Rows of a listing, following `links.next` pagination; `budget` bounds the pages several listings take together,
   * `get` reads one page (contract results go through contractResultsGet).
   */
  async collect<T>(path: string, field: string, budget?: PageBudget, get: (path: string) => Promise<any> = (p) => this.mirror.get(p)): Promise<T[]> {
    const rows: T[] = [];
    let next: string | null = path;
    for (let page = 0; next; page++) {
      if (page === MAX_PAGES) throw new GatewayError('RANGE_TOO_LARGE', `more than ${MAX_PAGES * 100} rows; narrow the query`);
      budget?.take();
      const body: any = await get(next);
      if (!body) break;
      rows.push(...((body[field] ?? []) as T[]));
      next = body.links?.next ?? null;
    }
    return rows;
  }

  /**
   * GET of contract results (one, or a page under `results`) with monetary fields in weibar. Numbers are parsed
   * exactly: an amount in weibar easily passes 2^53.
   */
  async contractResultsGet<T extends ContractResult | { results?: ContractResult[] }>(path: string): Promise<T | null> {
    if (this.hbarParameter) {
      try {
        return await this.mirror.get<T>(withHbarFalse(path), { exactNumbers: true });
      } catch (err) {
        if (!(isGatewayError(err) && err.errorName === 'INVALID_PARAMS' && /\bhbar\b/.test(err.message))) throw err;
        this.hbarParameter = false;
      }
    }
    const body = await this.mirror.get<any>(path, { exactNumbers: true });
    if (body && Array.isArray(body.results)) body.results.forEach(tinybarResultToWeibar);
    else if (body) tinybarResultToWeibar(body);
    return body as T | null;
  }

  /**
   * The newest block. The mirror node's answer is reused for `latestMs`, but a newer block this relay has already
   * served (a receipt's block, a block asked for by number) counts too: the head never trails what a client has seen.
   */
  async latestBlock(): Promise<MirrorBlock> {
    const head = await this.cache.fresh('block:latest', this.latestMs, async () => {
      const body = await this.mirror.get<{ blocks: MirrorBlock[] }>('/api/v1/blocks?limit=1&order=desc');
      const block = body?.blocks?.[0];
      if (!block) throw new GatewayError('MIRROR_UNAVAILABLE', 'the mirror node has no blocks yet');
      this.cache.put(`block:${block.number}`, block);
      return this.saw(block);
    });
    return this.newest && this.newest.number > head.number ? this.newest : head;
  }

  /**
   * The mirror node refuses (400) a number longer than any it stores (over 10 digits); past the head that is a block
   * that does not exist, as geth and the official relay answer, not the caller's bad input.
   */
  blockByNumber(n: number): Promise<MirrorBlock | null> {
    // Seen here even when another instance read it: a client served this block must not be told of an older head.
    return this.cache
      .finalRecord(`block:${n}`, async () => {
        try {
          return await this.mirror.get<MirrorBlock>(`/api/v1/blocks/${n}`);
        } catch (err) {
          if (isGatewayError(err) && err.errorName === 'INVALID_PARAMS' && n > (await this.latestBlock()).number) return null;
          throw err;
        }
      })
      .then(this.saw);
  }

  /**
   * Starts reading blocks by number without waiting for them, for a caller that needs the head first: they are then
   * found kept, or in flight. One that does not exist yet is not kept, so this never hides it later.
   */
  readAhead(numbers: number[]): void {
    for (const n of numbers) if (!this.cache.has(`block:${n}`)) this.blockByNumber(n).catch(() => undefined);
  }

  private newest?: MirrorBlock;
  private feeState?: FeeState;

  private readonly saw = <T extends MirrorBlock | null>(block: T): T => {
    if (block && (!this.newest || block.number > this.newest.number)) this.newest = block;
    return block;
  };

  /** By 32-byte (Ethereum) hash; the mirror node matches it as a prefix of the 48-byte ledger hash. */
  blockByHash(hash32: string): Promise<MirrorBlock | null> {
    return this.cache.finalRecord(`blockhash:${hash32}`, () => this.mirror.get<MirrorBlock>(`/api/v1/blocks/${hash32}`)).then((block) => {
      if (block && !this.cache.has(`block:${block.number}`)) this.cache.put(`block:${block.number}`, block);
      return this.saw(block);
    });
  }

  earliestBlock(): Promise<MirrorBlock | null> {
    return this.cache.finalRecord('block:earliest', async () => {
      const body = await this.mirror.get<{ blocks: MirrorBlock[] }>('/api/v1/blocks?limit=1&order=asc');
      return body?.blocks?.[0] ?? null;
    });
  }

  /** A block reference as a block; the head tags all mean the newest block, which is already final here. */
  resolveBlock(ref: BlockRef): Promise<MirrorBlock | null> {
    if ('hash' in ref) return this.blockByHash(ref.hash);
    if ('number' in ref) return this.blockByNumber(ref.number);
    return ref.tag === 'earliest' ? this.earliestBlock() : this.latestBlock();
  }

  /** Like resolveBlock, but a block that does not exist is an error (for state reads at a block). */
  async requireBlock(ref: BlockRef): Promise<MirrorBlock> {
    const block = await this.resolveBlock(ref);
    if (!block) throw new GatewayError('UNKNOWN_BLOCK', 'hash' in ref ? ref.hash : 'number' in ref ? `block ${ref.number}` : ref.tag);
    return block;
  }

  /**
   * A block's transactions, receipts root and running gas: its contract results and its logs (a log without a
   * contract result is an HTS token's synthetic transaction). Final. `rows` are its contract results when a caller
   * started reading them before it had the block (blockResultRows); the logs need the block's timestamp range.
   */
  blockContents(block: MirrorBlock, rows?: Promise<ContractResult[]>): Promise<BlockContents> {
    return this.cache.final(`contents:${block.number}`, async () => {
      const range = `timestamp=gte:${block.timestamp.from}&timestamp=lte:${block.timestamp.to}&limit=100&order=asc`;
      const [all, logs] = await Promise.all([rows ?? this.blockResultRows({ number: block.number }), this.collect<MirrorLog>(`/api/v1/contracts/results/logs?${range}`, 'logs')]);
      return assembleBlock(executedResults(all), logs);
    });
  }

  /**
   * A block's contract results as the mirror node lists them, found by the block's number or hash: the mirror node's
   * `block.number` and `block.hash` filters on /api/v1/contracts/results (OpenAPI v0.160) need no timestamp range,
   * so these can be read at the same time as the block itself.
   */
  blockResultRows(ref: { number: number } | { hash: string }): Promise<ContractResult[]> {
    const filter = 'number' in ref ? `block.number=${ref.number}` : `block.hash=${ref.hash}`;
    // Not kept (the block's contents are), but shared while in flight: two calls on one cold block read it once.
    return this.cache.fresh(`rows:${filter}`, 0, () =>
      this.collect<ContractResult>(`/api/v1/contracts/results?${filter}&limit=100&order=asc`, 'results', undefined, (p) => this.contractResultsGet(p)),
    );
  }

  /**
   * The contract results of the block `ref` names, read beside the block when its contents are not kept yet, or
   * undefined. A block by number only once a block at least as new has been seen, or the caller knows (`onMirror`)
   * the mirror node has it: a block it does not have yet lists no results, and contents built from that empty listing
   * would be kept for good.
   */
  earlyBlockRows(ref: BlockRef, onMirror = false): Promise<ContractResult[]> | undefined {
    if ('tag' in ref) return undefined;
    if ('number' in ref && (this.cache.has(`contents:${ref.number}`) || (!onMirror && (!this.newest || ref.number > this.newest.number)))) return undefined;
    if ('hash' in ref && this.cache.has(`blockhash:${ref.hash}`)) return undefined;
    const rows = this.blockResultRows(ref);
    // The block may turn out not to exist, and then nobody waits for its rows.
    rows.catch(() => undefined);
    return rows;
  }

  /**
   * One transaction of a block as blockContents lists it, from the block's contract results (`rows`) and that
   * transaction's own logs, which need no timestamp range: its index, running gas and logs come out the same.
   * Undefined when the block lists no such transaction.
   */
  async blockTransaction(rows: Promise<ContractResult[]>, txLogs: MirrorLog[], hash: string): Promise<BlockTx | undefined> {
    const hash32 = toHash32(hash);
    return blockTxs(executedResults(await rows), txLogs).find((tx) => tx.hash === hash32);
  }

  /**
   * A transaction by Ethereum hash; kept once it has a block, because then it never changes. Null for a synthetic
   * row (hiero-mirror-node PR #14305 answers the single lookup with one), which its logs describe instead.
   */
  async contractResult(hash: string): Promise<ContractResult | null> {
    const key = `result:${hash}`;
    const result = await this.cache.fresh(key, 0, () => this.contractResultsGet<ContractResult>(`/api/v1/contracts/results/${hash}`));
    if (!result || result.block_number === null || NOT_EXECUTED.has(result.result) || isSyntheticResult(result)) return null;
    this.cache.put(key, result);
    return result;
  }

  /** The logs of a transaction by hash: how a synthetic (HTS) transaction, which has no contract result, is found. */
  async transactionLogs(hash: string): Promise<MirrorLog[]> {
    const key = `txlogs:${hash}`;
    const logs = await this.cache.fresh(key, 0, () =>
      this.collect<MirrorLog>(`/api/v1/contracts/results/logs?transaction.hash=${hash}&limit=100&order=asc`, 'logs'),
    );
    if (logs.length > 0) this.cache.put(key, logs);
    return logs;
  }

  /** Gas price in tinybar per gas unit from the current fee schedule. */
  gasPriceTinybar(): Promise<bigint> {
    return this.cache.fresh('fees', FEES_TTL_MS, async () => ethereumFee(await this.mirror.get<FeesBody>('/api/v1/network/fees')));
  }

  /**
   * Gas price in tinybar per gas unit in force at a consensus timestamp (a block's end): what that block's
   * transactions paid, final, so kept. Before the first fee schedule the mirror node has none, and the current one
   * stands in.
   */
  gasPriceTinybarAt(timestamp: string): Promise<bigint> {
    return this.cache.final(`fees:${timestamp}`, async () => {
      const body = await this.mirror.get<FeesBody>(`/api/v1/network/fees?timestamp=lte:${timestamp}`);
      return body ? ethereumFee(body) : this.gasPriceTinybar();
    });
  }

  /** Whether gasPriceTinybarSince answers for block `number` from what it has read, without a round trip. */
  knowsPriceSince(number: number): boolean {
    return this.feeState !== undefined && this.feeState.covers >= number;
  }

  /**
   * The gas price in force at the end of block `number` without its end, which gasPriceTinybarAt needs: the current
   * one when neither the fee schedule nor the exchange rate (the mirror node prices gas with both) was set after
   * consensus time `since`, a time in that block. Undefined otherwise, or when the mirror node does not say. Both
   * are read once the mirror node is known to have the block, so a change within it is in what they say; one
   * reading serves every block up to the newest known when it was asked for.
   */
  async gasPriceTinybarSince(number: number, since: string): Promise<bigint | undefined> {
    if (!this.feeState || this.feeState.covers < number) {
      const state: FeeState = { covers: Math.max(number, this.newest?.number ?? number), read: Promise.resolve(undefined) };
      state.read = this.priceFiles('').then(
        ([fees, rate]) => priceOf(fees, rate),
        () => {
          // Asked again next time rather than never.
          if (this.feeState === state) this.feeState = undefined;
          return undefined;
        },
      );
      this.feeState = state;
    }
    const state = await this.feeState.read;
    return state && notAfter(state.feesSet, since) && notAfter(state.rateSet, since) ? state.tinybar : undefined;
  }

  /**
   * The gas price in force at the end of the block that holds a transaction at consensus time `since`, read before
   * that end is known, beside the block: the fee schedule and the exchange rate in force at a bound the block has
   * ended by (a block is a record file, whose transactions fall within one 2 s period, so `since`'s second plus 3 s).
   * `priceAtEnd` says whether it holds for the block's actual end. Saves a round trip for every transaction older than
   * the last change of either, which on mainnet is at most an hour away (the exchange rate is set hourly). Kept as
   * final only once the mirror node is known to have a block past the bound: before, a change still to come before
   * the bound is not in it.
   */
  gasPriceTinybarBy(since: string): Promise<PriceBy | undefined> {
    const bound = `${Number(since.split('.')[0]) + BLOCK_SPAN_BOUND_SECONDS}.000000000`;
    const read = async (): Promise<PriceBy | undefined> => {
      const [fees, rate] = await this.priceFiles(`?timestamp=lte:${bound}`);
      return fees ? { bound, ...priceOf(fees, rate) } : undefined;
    };
    return this.newest && notAfter(bound, this.newest.timestamp.to) ? this.cache.final(`fees-by:${bound}`, read) : read();
  }

  /** The fee schedule and the exchange rate (the mirror node prices gas with both), with `query` (`''`: the current ones). */
  private priceFiles(query: string): Promise<[FeesBody | null, FeesBody | null]> {
    return Promise.all([this.mirror.get<FeesBody>(`/api/v1/network/fees${query}`), this.mirror.get<FeesBody>(`/api/v1/network/exchangerate${query}`)]);
  }

  /** Current account state; null when the address has no account. Never cached (nonces move). */
  account(address: string): Promise<MirrorAccount | null> {
    return this.mirror.get<MirrorAccount>(`/api/v1/accounts/${address}?transactions=false`, { exactNumbers: true });
  }
}
