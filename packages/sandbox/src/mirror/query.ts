/**
 * Query parameters the way the real mirror node reads them: `name=op:value` with the operators eq, ne, gt, gte,
 * lt, lte (a bare value means eq), `limit` (default 25, capped at 100) and `order`. Every bad or unknown parameter
 * is reported at once, as the real node does, and `links.next` is rebuilt from the request's own parameters.
 */
import { MirrorError, invalidParameter, unknownParameter } from './errors.js';

export type Op = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';
export type Order = 'asc' | 'desc';

export interface Filter {
  op: Op;
  value: string;
}

export interface ParamRule {
  /** Operators this parameter accepts. */
  ops: readonly Op[];
  /** The value after the operator. */
  value: RegExp;
}

export interface Query {
  limit: number;
  order: Order;
  /** Filters by parameter name, in request order. */
  filters: Map<string, Filter[]>;
  /** The request's parameters as sent, for `links.next`. */
  raw: Array<[string, string]>;
}

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;

export const ALL_OPS: readonly Op[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'];
export const RANGE_OPS: readonly Op[] = ['eq', 'gt', 'gte', 'lt', 'lte'];
export const EQ: readonly Op[] = ['eq'];

/** Value patterns shared by several endpoints. */
export const VALUE = {
  timestamp: /^\d{1,10}(\.\d{1,9})?$/,
  integer: /^\d{1,19}$/,
  /** The real node takes a block number in decimal or 0x hex (rest/utils.js: isPositiveLong || isHexPositiveInt). */
  blockNumber: /^(\d{1,19}|0x[a-fA-F0-9]{1,16})$/,
  boolean: /^(true|false)$/,
  entityId: /^(\d{1,10}\.\d{1,10}\.)?\d{1,10}$/,
  hash32or48: /^(0x)?([0-9A-Fa-f]{64}|[0-9A-Fa-f]{96})$/,
  topic: /^(0x)?[0-9A-Fa-f]{1,64}$/,
};

const OPERATOR = /^(eq|ne|gte?|lte?):/;

export interface Paging {
  order: Order;
  /** False for endpoints that take `order` but return everything (network/fees). */
  limit?: boolean;
}

/** Throws an AggregateError of MirrorErrors listing every bad parameter. */
export function parseQuery(search: URLSearchParams, rules: Record<string, ParamRule>, paging?: Paging): Query {
  const errors: MirrorError[] = [];
  const query: Query = { limit: DEFAULT_LIMIT, order: paging?.order ?? 'asc', filters: new Map(), raw: [] };
  const reported = new Set<string>();
  const report = (err: MirrorError, name: string) => {
    if (reported.has(name)) return;
    reported.add(name);
    errors.push(err);
  };
  for (const [name, rawValue] of search) {
    query.raw.push([name, rawValue]);
    if (paging && name === 'order') {
      const order = rawValue.toLowerCase();
      if (order === 'asc' || order === 'desc') query.order = order;
      else report(invalidParameter(name), name);
      continue;
    }
    if (paging && paging.limit !== false && name === 'limit') {
      const limit = /^\d{1,10}$/.test(rawValue) ? Number(rawValue) : 0;
      // Like the real node: a positive limit above the maximum is capped, not refused.
      if (limit > 0) query.limit = Math.min(limit, MAX_LIMIT);
      else report(invalidParameter(name), name);
      continue;
    }
    const rule = rules[name];
    if (!rule) {
      report(unknownParameter(name), name);
      continue;
    }
    const m = OPERATOR.exec(rawValue);
    const op = (m?.[1] ?? 'eq') as Op;
    const value = m ? rawValue.slice(m[0].length) : rawValue;
    if (!rule.ops.includes(op) || !rule.value.test(value)) {
      report(invalidParameter(name), name);
      continue;
    }
    const list = query.filters.get(name) ?? [];
    list.push({ op, value });
    query.filters.set(name, list);
  }
  if (errors.length > 0) throw new AggregateError(errors, 'invalid query');
  return query;
}

/** The last value given for a single-valued parameter (the real node honours the last one). */
export function lastValue(query: Query, name: string): string | undefined {
  return query.filters.get(name)?.at(-1)?.value;
}

/**
 * A test of a value against every filter on one parameter: eq filters are alternatives (any one may match), the
 * others all apply. Filter values are parsed once, not per row.
 */
export function matcher(filters: readonly Filter[] | undefined, parse: (v: string) => bigint): (actual: bigint) => boolean {
  if (!filters || filters.length === 0) return () => true;
  const parsed = filters.map((f) => ({ op: f.op, v: parse(f.value) }));
  const eqs = parsed.filter((f) => f.op === 'eq').map((f) => f.v);
  const bounds = parsed.filter((f) => f.op !== 'eq');
  return (actual) =>
    (eqs.length === 0 || eqs.includes(actual)) &&
    bounds.every(({ op, v }) => {
      switch (op) {
        case 'ne':
          return actual !== v;
        case 'gt':
          return actual > v;
        case 'gte':
          return actual >= v;
        case 'lt':
          return actual < v;
        default:
          return actual <= v;
      }
    });
}

/** First index whose row satisfies `pred`, for a predicate that is false, then true, along the rows. */
function firstIndex<T>(rows: readonly T[], pred: (row: T) => boolean): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pred(rows[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The rows (ascending by `key`) that the range filters on that key can admit, found by binary search so that paging
 * through a long history does not scan it. Callers still apply every filter to each row (ne, several eq).
 */
export function within<T>(rows: readonly T[], key: (row: T) => bigint, filters: readonly Filter[] | undefined, parse: (v: string) => bigint): readonly T[] {
  let lo = 0;
  let hi = rows.length;
  const single = (filters ?? []).filter((f) => f.op === 'eq').length <= 1;
  for (const f of filters ?? []) {
    const v = parse(f.value);
    if (f.op === 'gt') lo = Math.max(lo, firstIndex(rows, (r) => key(r) > v));
    if (f.op === 'gte' || (f.op === 'eq' && single)) lo = Math.max(lo, firstIndex(rows, (r) => key(r) >= v));
    if (f.op === 'lt') hi = Math.min(hi, firstIndex(rows, (r) => key(r) >= v));
    if (f.op === 'lte' || (f.op === 'eq' && single)) hi = Math.min(hi, firstIndex(rows, (r) => key(r) > v));
  }
  return lo === 0 && hi === rows.length ? rows : rows.slice(lo, Math.max(lo, hi));
}

/**
 * One page of the rows that `keep` accepts, in the requested order, walking only as far as the page needs; `full`
 * says whether it filled up (the real node then links on, even if nothing follows).
 */
export function page<T>(rowsAscending: readonly T[], query: Query, keep: (row: T) => boolean = () => true): { rows: T[]; full: boolean } {
  const rows: T[] = [];
  const n = rowsAscending.length;
  for (let i = 0; i < n && rows.length < query.limit; i++) {
    const row = rowsAscending[query.order === 'asc' ? i : n - 1 - i];
    if (keep(row)) rows.push(row);
  }
  return { rows, full: rows.length === query.limit };
}

function direction(op: Op): 'up' | 'down' | 'none' {
  if (op === 'gt' || op === 'gte') return 'up';
  if (op === 'lt' || op === 'lte') return 'down';
  return 'none';
}

function encode(value: string): string {
  return encodeURIComponent(value).replaceAll('%3A', ':');
}

/**
 * `links.next` as the real node writes it: a relative `/api/v1/...` link with the request's parameters, where the
 * bounds that move with the page (gt/gte when ascending, lt/lte when descending) are replaced by `bounds`.
 */
export function nextLink(path: string, query: Query, bounds: Array<[string, Op, string]>): string {
  const moving = query.order === 'asc' ? 'up' : 'down';
  const replaced = new Set(bounds.map(([name]) => name));
  const parts: string[] = [];
  for (const [name, value] of query.raw) {
    const op = (OPERATOR.exec(value)?.[1] ?? 'eq') as Op;
    if (replaced.has(name) && direction(op) === moving) continue;
    parts.push(`${name}=${encode(value)}`);
  }
  for (const [name, op, value] of bounds) parts.push(`${name}=${op}:${encode(value)}`);
  return `${path}?${parts.join('&')}`;
}
