/** `/api/v1/network/fees` and `/api/v1/network/exchangerate`. */
import type { LedgerView } from '../ledger/view.js';
import { MirrorError, invalidParameter } from './errors.js';
import { timestampNanos } from './format.js';
import type { Route } from './http.js';
import { RANGE_OPS, VALUE, parseQuery, type Query } from './query.js';
import { latestTimestamp, timestampRange } from './state.js';

/** Fee types the real node prices (in tinybar per gas), in its ascending order. */
const FEE_TYPES = ['ContractCall', 'ContractCreate', 'EthereumTransaction'];
/**
 * The sandbox's fixed exchange rate: 30,000 hbar per 596,987 cents (the mirror node's own documented example,
 * about 0.20 USD per hbar).
 */
const HBAR_EQUIVALENT = 30_000;
const CENT_EQUIVALENT = 596_987;
/** Exchange rates expire on the hour. */
const RATE_PERIOD_SECONDS = 3_600n;
/** The ledger files the real node reads fees and rates from. */
const FEE_SCHEDULE_FILE = '0.0.111';
const EXCHANGE_RATE_FILE = '0.0.112';

/**
 * The file as of the request's `timestamp` (at most two of them, as the real node allows). Both files are written at
 * genesis, so asked for before it, neither exists: 404 in the real node's words.
 */
function requireFileAsOf(view: LedgerView, q: Query, file: string): void {
  const filters = q.filters.get('timestamp') ?? [];
  if (filters.length > 2) throw invalidParameter('timestamp');
  const { latest } = timestampRange(filters);
  const genesis = view.blocks()[0]?.timestampFrom;
  if (latest !== undefined && genesis !== undefined && latest < timestampNanos(genesis)) throw new MirrorError(404, `File ${file} not found`);
}

export function networkRoutes(view: LedgerView): Route[] {
  // The fee schedule and the exchange rate never change on the sandbox: any timestamp gets today's answer.
  const timestampOnly = { timestamp: { ops: RANGE_OPS, value: VALUE.timestamp } };
  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/network\/fees$/,
      handle(req) {
        const q = parseQuery(req.search, timestampOnly, { order: 'asc', limit: false });
        requireFileAsOf(view, q, FEE_SCHEDULE_FILE);
        const gas = view.gasPriceTinybar();
        const fees = FEE_TYPES.map((transaction_type) => ({ gas, transaction_type }));
        return { fees: q.order === 'asc' ? fees : fees.reverse(), timestamp: latestTimestamp(view) };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/network\/exchangerate$/,
      handle(req) {
        requireFileAsOf(view, parseQuery(req.search, timestampOnly), EXCHANGE_RATE_FILE);
        const timestamp = latestTimestamp(view);
        const seconds = timestampNanos(timestamp) / 1_000_000_000n;
        const expiration = Number((seconds / RATE_PERIOD_SECONDS + 1n) * RATE_PERIOD_SECONDS);
        const rate = { cent_equivalent: CENT_EQUIVALENT, expiration_time: expiration, hbar_equivalent: HBAR_EQUIVALENT };
        return { current_rate: rate, next_rate: { ...rate, expiration_time: expiration + Number(RATE_PERIOD_SECONDS) }, timestamp };
      },
    },
  ];
}
