/**
 * Cached lookups of ledger data on the mirror node. Everything final (blocks, a block's contract results, a
 * contract result that has a block) is cached until evicted; the chain head and the fee schedule briefly; account
 * state (balance, nonce) never, because a client sending transactions back to back needs the current nonce.
 */
import { GatewayError } from '../errors.js';
import type { BlockRef } from '../methods/params.js';
import type { ReadCache } from './cache.js';
import type { MirrorClient } from './mirror.js';

export interface MirrorBlock {
  number: number;
  hash: string;
  previous_hash: string;
  timestamp: { from: string; to: string };
  gas_used: number | null;
  logs_bloom: string | null;
  size: number | null;
  count: number;
}

export interface MirrorLog {
  address: string;
  block_hash?: string;
  block_number?: number;
  data: string | null;
  index: number;
  topics: string[];
  transaction_hash?: string;
  transaction_index?: number;
  timestamp?: string;
}

/** A contract result as /contracts/results lists it; the by-hash form adds logs. */
export interface ContractResult {
  address: string | null;
  amount: number | null;
  block_gas_used: number | null;
  block_hash: string | null;
  block_number: number | null;
  bloom: string | null;
  call_result: string | null;
  chain_id: string | null;
  contract_id: string | null;
  created_contract_ids: string[] | null;
  error_message: string | null;
  from: string;
  function_parameters: string | null;
  gas_limit: number;
  gas_price: string | null;
  gas_used: number | null;
  hash: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  nonce: number | null;
  r: string | null;
  s: string | null;
  v: number | null;
  result: string;
  status: string;
  timestamp: string;
  to: string | null;
  transaction_index: number | null;
  type: number | null;
  logs?: MirrorLog[];
}

export interface MirrorAccount {
  account: string;
  balance: { balance: number | bigint; timestamp: string | null } | null;
  ethereum_nonce: number | null;
  evm_address: string | null;
}

/** The fee schedule changes rarely; re-reading it every 10 s is plenty and keeps eth_gasPrice in-process. */
const FEES_TTL_MS = 10_000;
/** Bound on `links.next` pages followed for one answer (100 rows each). */
export const MAX_PAGES = 50;
/** Results that never executed: an Ethereum node would not have included them in a block. */
const NOT_EXECUTED = new Set(['WRONG_NONCE', 'INVALID_ACCOUNT_ID']);

export class LedgerReads {
  constructor(
    readonly mirror: MirrorClient,
    readonly cache: ReadCache,
    private readonly latestMs: number,
  ) {}

  /** Rows of a listing, following `links.next` pagination. */
  async collect<T>(path: string, field: string): Promise<T[]> {
    const rows: T[] = [];
    let next: string | null = path;
    for (let page = 0; next; page++) {
      if (page === MAX_PAGES) throw new GatewayError('RANGE_TOO_LARGE', `more than ${MAX_PAGES * 100} rows; narrow the query`);
      const body: any = await this.mirror.get(next);
      if (!body) break;
      rows.push(...((body[field] ?? []) as T[]));
      next = body.links?.next ?? null;
    }
    return rows;
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

  blockByNumber(n: number): Promise<MirrorBlock | null> {
    return this.cache.final(`block:${n}`, async () => this.saw(await this.mirror.get<MirrorBlock>(`/api/v1/blocks/${n}`)));
  }

  private newest?: MirrorBlock;

  private saw<T extends MirrorBlock | null>(block: T): T {
    if (block && (!this.newest || block.number > this.newest.number)) this.newest = block;
    return block;
  }

  /** By 32-byte (Ethereum) hash; the mirror node matches it as a prefix of the 48-byte ledger hash. */
  blockByHash(hash32: string): Promise<MirrorBlock | null> {
    return this.cache.final(`blockhash:${hash32}`, async () => {
      const block = await this.mirror.get<MirrorBlock>(`/api/v1/blocks/${hash32}`);
      if (block) this.cache.put(`block:${block.number}`, block);
      return this.saw(block);
    });
  }

  earliestBlock(): Promise<MirrorBlock | null> {
    return this.cache.final('block:earliest', async () => {
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

  /** The EVM transactions of a block: contract results in its timestamp range, in order. */
  blockResults(block: MirrorBlock): Promise<ContractResult[]> {
    return this.cache.final(`results:${block.number}`, async () => {
      const rows = await this.collect<ContractResult>(
        `/api/v1/contracts/results?timestamp=gte:${block.timestamp.from}&timestamp=lte:${block.timestamp.to}&limit=100&order=asc`,
        'results',
      );
      const seen = new Set<string>();
      return rows.filter((r) => {
        if (NOT_EXECUTED.has(r.result) || seen.has(r.hash)) return false;
        seen.add(r.hash);
        return true;
      });
    });
  }

  /** A transaction by Ethereum hash; kept once it has a block, because then it never changes. */
  async contractResult(hash: string): Promise<ContractResult | null> {
    const key = `result:${hash}`;
    const result = await this.cache.fresh(key, 0, () => this.mirror.get<ContractResult>(`/api/v1/contracts/results/${hash}`));
    if (!result || result.block_number === null || NOT_EXECUTED.has(result.result)) return null;
    this.cache.put(key, result);
    return result;
  }

  /** Gas price in tinybar per gas unit from the fee schedule. */
  gasPriceTinybar(): Promise<bigint> {
    return this.cache.fresh('fees', FEES_TTL_MS, async () => {
      const body = await this.mirror.get<{ fees: Array<{ gas: number; transaction_type: string }> }>('/api/v1/network/fees');
      const fee = body?.fees?.find((f) => f.transaction_type === 'EthereumTransaction');
      if (!fee) throw new GatewayError('MIRROR_UNAVAILABLE', 'the mirror node has no EthereumTransaction fee');
      return BigInt(fee.gas);
    });
  }

  /** Current account state; null when the address has no account. Never cached (nonces move). */
  account(address: string): Promise<MirrorAccount | null> {
    return this.mirror.get<MirrorAccount>(`/api/v1/accounts/${address}?transactions=false`, { exactNumbers: true });
  }
}
