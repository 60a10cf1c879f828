/** Contract logs: `/contracts/results/logs` and `/contracts/{id}/results/logs`, with topic filters. */
import { GatewayError } from '../../errors.js';
import type { LedgerView } from '../ledger/view.js';
import { requireContract } from './entities.js';
import { timestampNanos, word } from './format.js';
import type { MirrorRequest, Route } from './http.js';
import { EQ, RANGE_OPS, VALUE, lastValue, matcher, nextLink, page, parseQuery, within, type Filter, type Query } from './query.js';
import type { EthRecords, LogRow } from './records.js';

const TOPICS = ['topic0', 'topic1', 'topic2', 'topic3'] as const;

const RULES = {
  index: { ops: RANGE_OPS, value: /^\d{1,10}$/ },
  timestamp: { ops: RANGE_OPS, value: VALUE.timestamp },
  ...Object.fromEntries(TOPICS.map((t) => [t, { ops: EQ, value: VALUE.topic }])),
};
const GLOBAL_RULES = { ...RULES, 'transaction.hash': { ops: EQ, value: VALUE.hash32or48 } };

const isLower = (f: Filter) => f.op === 'gt' || f.op === 'gte' || f.op === 'eq';
const isUpper = (f: Filter) => f.op === 'lt' || f.op === 'lte' || f.op === 'eq';

/**
 * The real node's reading of `index`: a position within the transaction at the boundary timestamp, so
 * `timestamp=gte:T&index=gt:I` means "after log I of the transaction at T", which is how its pagination resumes.
 */
function indexFilter(q: Query): (row: LogRow) => boolean {
  const index = q.filters.get('index');
  if (!index) return () => true;
  const ts = q.filters.get('timestamp');
  if (!ts) throw new GatewayError('MIRROR_INVALID_PARAMETER', 'index');
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
      handle: (req) => list(req, parseQuery(req.search, GLOBAL_RULES, { order: 'desc' })),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/([^/]+)\/results\/logs$/,
      handle(req) {
        const q = parseQuery(req.search, RULES, { order: 'desc' });
        return list(req, q, requireContract(view, req.params[0]).id);
      },
    },
  ];
}
