/**
 * Contract logs: `/contracts/results/logs` and `/contracts/{id}/results/logs`, with topic filters, held to the real
 * node's rules for combining `timestamp`, `index`, topics and `transaction.hash` (contractController.js: Bound,
 * validateContractLogsBounds, checkTimestampsForTopics; baseController.js: validateBounds).
 */
import { badRequest } from './errors.js';
import type { LedgerView } from '../ledger/view.js';
import { contractIdOf } from './entities.js';
import { timestampNanos, word } from './format.js';
import type { MirrorRequest, Route } from './http.js';
import { ALL_OPS, EQ, VALUE, lastValue, matcher, nextLink, page, parseQuery, within, type Filter, type Query } from './query.js';
import type { EthRecords, LogRow } from './records.js';

const TOPICS = ['topic0', 'topic1', 'topic2', 'topic3'] as const;

// `ne` passes the parameter check and is then refused by the bound rules, in the real node's words.
const RULES = {
  index: { ops: ALL_OPS, value: /^\d{1,10}$/ },
  timestamp: { ops: ALL_OPS, value: VALUE.timestamp },
  ...Object.fromEntries(TOPICS.map((t) => [t, { ops: EQ, value: VALUE.topic }])),
};
const GLOBAL_RULES = { ...RULES, 'transaction.hash': { ops: EQ, value: VALUE.hash32or48 } };
/** The longest timestamp range a topic search may span (the real node's `maxTimestampRange`, 7 days). */
const MAX_TOPIC_RANGE_NS = 7n * 24n * 3600n * 1_000_000_000n;

const isLower = (f: Filter) => f.op === 'gt' || f.op === 'gte' || f.op === 'eq';
const isUpper = (f: Filter) => f.op === 'lt' || f.op === 'lte' || f.op === 'eq';

interface Bound {
  eq?: Filter;
  lower?: Filter;
  upper?: Filter;
  empty: boolean;
}

/** One parameter's filters as a bound: at most one eq, one lower and one upper, and no ne. */
function bound(q: Query, key: string): Bound {
  const filters = q.filters.get(key) ?? [];
  const eq = filters.filter((f) => f.op === 'eq');
  const lower = filters.filter((f) => f.op === 'gt' || f.op === 'gte');
  const upper = filters.filter((f) => f.op === 'lt' || f.op === 'lte');
  if (eq.length > 1) throw badRequest(`Only one equal (eq) operator is allowed for ${key}`);
  if (lower.length > 1) throw badRequest(`Only one gt/gte operator is allowed for ${key}`);
  if (upper.length > 1) throw badRequest(`Only one lt/lte operator is allowed for ${key}`);
  if (filters.some((f) => f.op === 'ne')) throw badRequest(`Not equal (ne) operator is not supported for ${key}`);
  return { eq: eq[0], lower: lower[0], upper: upper[0], empty: filters.length === 0 };
}

/** `timestamp=gte:A&timestamp=lte:A` alone is read as `timestamp=A`, as the real node does before any other rule. */
function alterTimestampRange(q: Query): Query {
  const ts = q.filters.get('timestamp');
  if (ts?.length !== 2 || ts[0].value !== ts[1].value) return q;
  const ops = ts.map((f) => f.op);
  if (!ops.includes('gte') || !ops.includes('lte')) return q;
  return { ...q, filters: new Map([...q.filters, ['timestamp', [{ op: 'eq', value: ts[0].value }]]]) };
}

/** A topic search needs a closed timestamp range of at most 7 days, or timestamp equality. */
function checkTopicRange(q: Query): void {
  if (!TOPICS.some((t) => q.filters.has(t))) return;
  const refuse = (why: string) => badRequest(`Cannot search topics without a valid timestamp range: ${why}`);
  const ts = q.filters.get('timestamp') ?? [];
  if (ts.length === 0) throw refuse('No timestamp range or eq operator provided');
  const lower = ts.filter((f) => f.op === 'gt' || f.op === 'gte');
  const upper = ts.filter((f) => f.op === 'lt' || f.op === 'lte');
  const eq = ts.filter((f) => f.op === 'eq');
  if (ts.some((f) => f.op === 'ne')) throw refuse('Not equals operator not supported for timestamp param');
  if (lower.length > 1) throw refuse('Multiple gt or gte operators not permitted for timestamp param');
  if (upper.length > 1) throw refuse('Multiple lt or lte operators not permitted for timestamp param');
  if (eq.length > 0 && (lower.length > 0 || upper.length > 0)) throw refuse('Cannot combine eq with ne, gt, gte, lt, or lte for timestamp param');
  if (eq.length > 0) return;
  if (lower.length === 0 || upper.length === 0) throw refuse('Timestamp range must have gt (or gte) and lt (or lte), or eq operator');
  const earliest = timestampNanos(lower[0].value) + (lower[0].op === 'gt' ? 1n : 0n);
  const latest = timestampNanos(upper[0].value) - (upper[0].op === 'lt' ? 1n : 0n);
  const span = latest - earliest + 1n;
  if (span <= 0n || span > MAX_TOPIC_RANGE_NS) throw refuse('Timestamp range by the lower and upper bounds must be positive and within 7d');
}

/** The rules on `timestamp` (primary) and `index` (secondary) together. */
function checkBounds(q: Query): void {
  const ts = bound(q, 'timestamp');
  const index = bound(q, 'index');
  if (index.eq && !ts.eq) throw badRequest('timestamp must have eq operator');
  for (const [key, b] of [['timestamp', ts], ['index', index]] as const) {
    if ((b.lower || b.upper) && b.eq) throw badRequest(`Can't support both range and equal for ${key}`);
  }
  if (ts.empty && !index.empty) throw badRequest('index without a timestamp parameter filter');
  if (!ts.eq && index.lower && (!ts.lower || ts.lower.op === 'gt')) throw badRequest('timestamp must have gte or eq operator');
  if (!ts.eq && index.upper && (!ts.upper || ts.upper.op === 'lt')) throw badRequest('timestamp must have lte or eq operator');
}

/** The query with the real node's rules applied; throws its 400s. */
function checked(q: Query): Query {
  const altered = alterTimestampRange(q);
  checkTopicRange(altered);
  if ((altered.filters.get('transaction.hash')?.length ?? 0) > 1) throw badRequest('Only one transaction.hash filter is allowed');
  checkBounds(altered);
  return altered;
}

/**
 * The real node's reading of `index`: a position within the transaction at the boundary timestamp, so
 * `timestamp=gte:T&index=gt:I` means "after log I of the transaction at T", which is how its pagination resumes.
 */
function indexFilter(q: Query): (row: LogRow) => boolean {
  const index = q.filters.get('index');
  const ts = q.filters.get('timestamp');
  if (!index || !ts) return () => true;
  const lowerTs = ts.find((f) => f.op === 'gte' || f.op === 'eq');
  const upperTs = ts.find((f) => f.op === 'lte' || f.op === 'eq');
  const lower = matcher(index.filter(isLower), BigInt);
  const upper = matcher(index.filter(isUpper), BigInt);
  const lowerAt = lowerTs && timestampNanos(lowerTs.value);
  const upperAt = upperTs && timestampNanos(upperTs.value);
  return (row) =>
    (lowerAt !== undefined && row.timestamp !== lowerAt ? true : lower(BigInt(row.index))) &&
    (upperAt !== undefined && row.timestamp !== upperAt ? true : upper(BigInt(row.index)));
}

function topicFilter(q: Query): (row: LogRow) => boolean {
  const wanted = TOPICS.map((t) => q.filters.get(t)?.map((f) => word(f.value)));
  return (row) => wanted.every((alternatives, i) => !alternatives || alternatives.includes(row.body.topics[i]));
}

export function logRoutes(view: LedgerView, records: EthRecords): Route[] {
  async function list(req: MirrorRequest, q: Query, contractId?: string) {
    const byIndex = indexFilter(q);
    const byTopic = topicFilter(q);
    const txHash = lastValue(q, 'transaction.hash')?.toLowerCase().replace(/^(0x)?/, '0x');
    const times = q.filters.get('timestamp');
    const timeMatches = matcher(times, timestampNanos);
    const candidates = within(await records.logs(), (row) => row.timestamp, times, timestampNanos);
    const { rows, full } = page(
      candidates,
      q,
      (row) =>
        (contractId === undefined || row.contractId === contractId) &&
        (txHash === undefined || row.body.transaction_hash === txHash || row.ledgerHash === txHash) &&
        timeMatches(row.timestamp) &&
        byIndex(row) &&
        byTopic(row),
    );
    const last = rows.at(-1);
    const [tsOp, indexOp] = q.order === 'asc' ? (['gte', 'gt'] as const) : (['lte', 'lt'] as const);
    return {
      logs: rows.map((r) => r.body),
      links: {
        next: full && last ? nextLink(req.path, q, [['timestamp', tsOp, last.body.timestamp], ['index', indexOp, String(last.index)]]) : null,
      },
    };
  }

  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/results\/logs$/,
      handle: (req) => list(req, checked(parseQuery(req.search, GLOBAL_RULES, { order: 'desc' }))),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/([^/]+)\/results\/logs$/,
      handle(req) {
        const q = checked(parseQuery(req.search, RULES, { order: 'desc' }));
        // An unknown contract has no logs: the real node answers an empty page, not 404.
        const id = contractIdOf(view, req.params[0]);
        return id ? list(req, q, id) : { logs: [], links: { next: null } };
      },
    },
  ];
}
