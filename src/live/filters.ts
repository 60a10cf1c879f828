/**
 * eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs and
 * eth_uninstallFilter, kept by the gateway on every chain. A filter is a cursor into the chain (the newest block it
 * has delivered, and the last few block hashes to notice a reorganisation) stored in a FilterStore; each poll reads
 * the chain from that cursor through a ChainSource, so nothing is held upstream and any instance can answer.
 */
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import { positional } from '../methods/params.js';
import { filterPolls, filtersCreated } from '../metrics.js';
import { numericBound, parseCriteria, type ChainLog } from './criteria.js';
import type { FilterState, FilterStore, LogCriteria } from './filterStore.js';
import { advance, removedLogs, type ChainSource } from './source.js';

export const FILTER_METHODS = [
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
] as const;
export type FilterMethod = (typeof FILTER_METHODS)[number];
const FILTER_METHOD_SET = new Set<string>(FILTER_METHODS);
export const isFilterMethod = (method: string): method is FilterMethod => FILTER_METHOD_SET.has(method);

/** The catalogue's words for an unknown filter: geth's (-32000), or the official ledger relay's (-32001). */
export type FilterNotFound = 'FILTER_NOT_FOUND' | 'LEDGER_FILTER_NOT_FOUND';

/** Polls of one filter racing on two instances retry this often before answering that the other poll took the changes. */
const CONFLICT_RETRIES = 3;

export interface FilterServiceOptions {
  store: FilterStore;
  timeoutMs: number;
  /** Clock in ms; tests inject one to expire filters. */
  now?: () => number;
}

/** The gateway's filters: one store and clock; `on` binds them to a network and the way to read its chain. */
export class FilterService {
  readonly now: () => number;

  constructor(readonly opts: FilterServiceOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** `notFound` is how the chain's own nodes word an unknown filter: geth's by default. */
  on(network: string, source: ChainSource, notFound: FilterNotFound = 'FILTER_NOT_FOUND'): NetworkFilters {
    return new NetworkFilters(this, network, source, notFound);
  }

  /** Filters held by this instance's memory store (undefined when they live in Redis). */
  size(): number | undefined {
    return this.opts.store.size(this.now());
  }

  close(): Promise<void> {
    return this.opts.store.close();
  }
}

export class NetworkFilters {
  constructor(
    private readonly service: FilterService,
    private readonly network: string,
    private readonly source: ChainSource,
    private readonly notFound: FilterNotFound,
  ) {}

  /** Runs one filter method for a caller's key. */
  call(method: FilterMethod, params: unknown, key: VerifiedKey | undefined): Promise<unknown> {
    if (!key) throw new GatewayError('KEY_MISSING');
    switch (method) {
      case 'eth_newFilter': {
        const [param] = positional(params, 1, 1);
        const criteria = parseCriteria(param, 'filter', { blockRange: 'take' });
        return this.checkRange('eth_newFilter', criteria).then(() => this.install(key, 'logs', criteria));
      }
      case 'eth_newBlockFilter':
        positional(params, 0, 0);
        return this.install(key, 'blocks');
      case 'eth_newPendingTransactionFilter':
        positional(params, 0, 1);
        return this.install(key, 'pending');
      case 'eth_getFilterChanges':
        return this.changes(key, filterId(params));
      case 'eth_getFilterLogs':
        return this.allLogs(key, filterId(params));
      case 'eth_uninstallFilter':
        return this.service.opts.store.remove(filterId(params), key.id);
    }
  }

  private async install(key: VerifiedKey, kind: FilterState['kind'], criteria?: LogCriteria): Promise<string> {
    const { store, timeoutMs } = this.service.opts;
    // Pending-transaction filters read nothing: with no public mempool, no transaction is ever pending here.
    const head = kind === 'pending' ? 0 : await this.source.head();
    const [start] = kind === 'pending' ? [] : await this.source.blocks(head, head);
    const now = this.service.now();
    const state: FilterState = {
      id: withoutLeadingZeros(`0x${randomBytes(16).toString('hex')}`),
      keyId: key.id,
      network: this.network,
      kind,
      ...(criteria ? { criteria } : {}),
      cursor: head,
      recent: start ? [{ n: head, hash: start.hash, ...(kind === 'logs' ? { logs: [] } : {}) }] : [],
      expiresAt: now + timeoutMs,
      version: 0,
    };
    if (!(await store.add(state, key.plan.maxFilters, now))) {
      throw new GatewayError('TOO_MANY_FILTERS', `your ${key.planName} plan allows ${key.plan.maxFilters}`);
    }
    filtersCreated.inc({ network: this.network, kind });
    return state.id;
  }

  private async find(key: VerifiedKey, id: string): Promise<FilterState> {
    const state = await this.service.opts.store.get(id, this.service.now());
    // Another key's filter, or another network's, is as unknown to this caller as one that never existed.
    if (!state || state.keyId !== key.id || state.network !== this.network) throw new GatewayError(this.notFound);
    return state;
  }

  private async changes(key: VerifiedKey, id: string): Promise<unknown[]> {
    const { store, timeoutMs } = this.service.opts;
    for (let attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      const state = await this.find(key, id);
      const next: FilterState = { ...state, version: state.version + 1, expiresAt: this.service.now() + timeoutMs };
      let result: unknown[] = [];
      if (state.kind !== 'pending') {
        const criteria = state.criteria;
        const step = await advance(this.source, state.cursor, state.recent, criteria ? (first, last) => this.logsIn(criteria, first, last) : undefined);
        next.cursor = step.cursor;
        next.recent = step.recent;
        result = criteria ? [...removedLogs(step.removed), ...step.logs] : step.added.map((h) => h.hash);
      }
      if (await store.replace(next, state.version, this.service.now())) {
        filterPolls.inc({ network: this.network, kind: state.kind });
        return result;
      }
    }
    // Every attempt lost to a poll on another instance: those polls delivered the changes.
    return [];
  }

  /** Logs matching the filter in blocks first..last, within its own fromBlock/toBlock. */
  private async logsIn(criteria: LogCriteria, first: number, last: number): Promise<ChainLog[]> {
    const from = Math.max(first, numericBound(criteria.fromBlock) ?? first);
    const to = Math.min(last, numericBound(criteria.toBlock) ?? last);
    if (from > to) return [];
    return this.source.logs(criteria, from, to);
  }

  private async allLogs(key: VerifiedKey, id: string): Promise<unknown[]> {
    const state = await this.find(key, id);
    if (!state.criteria) throw new GatewayError(this.notFound, 'not a log filter');
    // Checked again as the head has moved since the filter was made: `latest` now reaches further.
    await this.checkRange('eth_getFilterLogs', state.criteria);
    return this.source.logs(state.criteria, state.criteria.fromBlock ?? 'latest', state.criteria.toBlock ?? 'latest');
  }

  /** A filter's own range, within what the chain is asked for at once (its polls read at most one poll's blocks). */
  private async checkRange(method: FilterMethod, criteria: LogCriteria): Promise<void> {
    await this.source.checkLogRange?.(method, criteria.fromBlock ?? 'latest', criteria.toBlock ?? 'latest');
  }
}

function filterId(params: unknown): string {
  const [id] = positional(params, 1, 1);
  if (typeof id !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(id)) throw new GatewayError('INVALID_PARAMS', `filter id must be a hex string, got ${JSON.stringify(id)}`);
  return withoutLeadingZeros(id.toLowerCase());
}

/**
 * Filter ids are quantities, as geth and the official relay write them: no leading zeros. An id sent with them (as
 * ids were once given out) names the same filter.
 */
function withoutLeadingZeros(id: string): string {
  return `0x${id.slice(2).replace(/^0+(?=.)/, '')}`;
}
