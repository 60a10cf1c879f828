/**
 * Query parameters the way the real mirror node reads them: `name=op:value` with the operators eq, ne, gt, gte,
 * lt, lte (a bare value means eq), `limit` (default 25, capped at 100) and `order`. Every bad or unknown parameter
 * is reported at once, as the real node does, and `links.next` is rebuilt from the request's own parameters.
 */
import { GatewayError } from '../../errors.js';

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

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export const ALL_OPS: readonly Op[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'];
export const RANGE_OPS: readonly Op[] = ['eq', 'gt', 'gte', 'lt', 'lte'];
export const EQ: readonly Op[] = ['eq'];

/** Value patterns shared by several endpoints. */
export const VALUE = {
  timestamp: /^\d{1,10}(\.\d{1,9})?$/,
  integer: /^\d{1,19}$/,
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

function invalid(name: string) {
  return new GatewayError('MIRROR_INVALID_PARAMETER', name);
}

/** Throws an AggregateError of catalogue errors listing every bad parameter. */
export function parseQuery(search: URLSearchParams, rules: Record<string, ParamRule>, paging?: Paging): Query {
  const errors: GatewayError[] = [];
  const query: Query = { limit: DEFAULT_LIMIT, order: paging?.order ?? 'asc', filters: new Map(), raw: [] };
  const reported = new Set<string>();
  const report = (err: GatewayError, name: string) => {
    if (reported.has(name)) return;
    reported.add(name);
    errors.push(err);
  };
  for (const [name, rawValue] of search) {
    query.raw.push([name, rawValue]);
    if (paging && name === 'order') {
      const order = rawValue.toLowerCase();
      if (order === 'asc' || order === 'desc') query.order = order;
      else report(invalid(name), name);
      continue;
    }
    if (paging && paging.limit !== false && name === 'limit') {
      const limit = /^\d{1,10}$/.test(rawValue) ? Number(rawValue) : 0;
      // Like the real node: a positive limit above the maximum is capped, not refused.
      if (limit > 0) query.limit = Math.min(limit, MAX_LIMIT);
      else report(invalid(name), name);
      continue;
    }
    const rule = rules[name];
    if (!rule) {
      report(new GatewayError('MIRROR_UNKNOWN_PARAMETER', name), name);
      continue;
    }
    const m = OPERATOR.exec(rawValue);
    const op = (m?.[1] ?? 'eq') as Op;
    const value = m ? rawValue.slice(m[0].length) : rawValue;
    if (!rule.ops.includes(op) || !rule.value.test(value)) {
      report(invalid(name), name);
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
 * Whether `actual` passes every filter: eq filters are alternatives (any one may match), the others all apply.
 */
export function passes(filters: readonly Filter[] | undefined, actual: bigint, parse: (v: string) => bigint): boolean {
  if (!filters) return true;
  let eqSeen = false;
  let eqHit = false;
  for (const f of filters) {
    const v = parse(f.value);
    switch (f.op) {
      case 'eq':
        eqSeen = true;
        if (actual === v) eqHit = true;
        break;
      case 'ne':
        if (actual === v) return false;
        break;
      case 'gt':
        if (!(actual > v)) return false;
        break;
      case 'gte':
        if (!(actual >= v)) return false;
        break;
      case 'lt':
        if (!(actual < v)) return false;
        break;
      case 'lte':
        if (!(actual <= v)) return false;
        break;
    }
  }
  return !eqSeen || eqHit;
}

/** Rows in the requested order, one page of them, and whether the page is full (the real node then links on). */
export function page<T>(rowsAscending: readonly T[], query: Query): { rows: T[]; full: boolean } {
  const ordered = query.order === 'asc' ? rowsAscending : [...rowsAscending].reverse();
  const rows = ordered.slice(0, query.limit);
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
