/** The address/topics part of a log filter: parsed from a client's params, and matched against logs in-process. */
import { GatewayError } from '../errors.js';
import { address, blockNumberOrTag, hash32, object } from '../methods/params.js';
import type { LogCriteria } from './filterStore.js';

/** What the gateway reads of a log; every chain's eth_getLogs answers at least these fields. */
export interface ChainLog {
  address: string;
  topics: string[];
  blockNumber: string;
  blockHash: string;
  logIndex?: string;
  removed?: boolean;
}

/**
 * `{address?, topics?, fromBlock?, toBlock?}` as eth_newFilter and eth_subscribe('logs') take it. A subscription
 * follows new blocks: geth refuses a block range on it, the official relay drops it (`blockRange: 'ignore'`).
 */
export function parseCriteria(value: unknown, name: string, opts: { blockRange: 'take' | 'refuse' | 'ignore' }): LogCriteria {
  const filter = value === undefined || value === null ? {} : object(value, name);
  if (filter.blockHash !== undefined && filter.blockHash !== null) {
    throw new GatewayError('INVALID_PARAMS', `${name}.blockHash is for eth_getLogs; a filter follows new blocks`);
  }
  const raw = filter.address;
  const addresses = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw.map((a, i) => address(a, `${name}.address[${i}]`)) : [address(raw, `${name}.address`)];
  const topicsRaw = filter.topics ?? [];
  if (!Array.isArray(topicsRaw) || topicsRaw.length > 4) throw new GatewayError('INVALID_PARAMS', `${name}.topics must be an array of at most 4 entries`);
  const topics = topicsRaw.map((t, i) => {
    if (t === null) return null;
    const options = Array.isArray(t) ? t : [t];
    return options.map((o, j) => hash32(o, `${name}.topics[${i}]${Array.isArray(t) ? `[${j}]` : ''}`));
  });
  const criteria: LogCriteria = { address: addresses, topics };
  if (opts.blockRange === 'take') {
    for (const bound of ['fromBlock', 'toBlock'] as const) {
      const given = filter[bound];
      if (given === undefined || given === null) continue;
      blockNumberOrTag(given, `${name}.${bound}`);
      criteria[bound] = given as string;
    }
  } else if (opts.blockRange === 'refuse' && (filter.fromBlock !== undefined || filter.toBlock !== undefined)) {
    throw new GatewayError('INVALID_PARAMS', `${name} of a subscription takes address and topics only`);
  }
  return criteria;
}

/** The numeric block bound of a filter, or undefined for a tag (tags follow the head). */
export function numericBound(value: string | undefined): number | undefined {
  if (value === undefined || !value.startsWith('0x')) return undefined;
  return Number(BigInt(value));
}

export function matches(log: ChainLog, criteria: Pick<LogCriteria, 'address' | 'topics'>): boolean {
  if (criteria.address.length > 0 && !criteria.address.includes(log.address.toLowerCase())) return false;
  return criteria.topics.every((options, i) => options === null || options.length === 0 || (log.topics[i] !== undefined && options.includes(log.topics[i].toLowerCase())));
}

/** The criteria in eth_getLogs form, for one block range. */
export function getLogsParam(criteria: Pick<LogCriteria, 'address' | 'topics'>, fromBlock: string, toBlock: string): Record<string, unknown> {
  const param: Record<string, unknown> = { fromBlock, toBlock };
  if (criteria.address.length > 0) param.address = criteria.address;
  if (criteria.topics.length > 0) param.topics = criteria.topics;
  return param;
}
