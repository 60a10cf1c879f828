/** `/api/v1/balances`: hbar balances of every account, now or as of a timestamp, paged by account id. */
import type { LedgerView } from '../ledger/view.js';
import { tokenBalancesOf } from './accountTokens.js';
import { lookupEntity } from './entities.js';
import { entityNum } from './format.js';
import type { Route } from './http.js';
import { MirrorError } from './errors.js';
import { ALL_OPS, EQ, VALUE, lastValue, matcher, nextLink, page, parseQuery, type Filter } from './query.js';
import { balanceAt, snapshotFor } from './state.js';

/** account.id takes an id with an operator, or (without one) an EVM address or alias as `/accounts/{id}` does. */
const ACCOUNT_ID = /^((\d{1,10}\.){0,2}\d{1,10}|(0x)?[A-Fa-f0-9]{40}|(?:[A-Z2-7]{8})*(?:[A-Z2-7]{2}|[A-Z2-7]{4,5}|[A-Z2-7]{7,8}))$/;

/**
 * The real node takes at most one EVM address or alias among the account.id filters, and only as an equality
 * (balances.js parseAccountIdQueryParam); it says which in `detail`.
 */
function accountIdFilters(filters: Filter[] | undefined): Filter[] | undefined {
  const named = (filters ?? []).filter((f) => entityNum(f.value) === undefined);
  const refuse = (detail: string) => new MirrorError(400, 'Invalid parameter: account.id', { detail });
  if (named.length > 1) throw refuse('Only one EVM address or alias is allowed.');
  if (named.some((f) => f.op !== 'eq')) throw refuse('EVM address or alias only supports equals operator');
  return filters;
}

export function balanceRoutes(view: LedgerView): Route[] {
  const rules = {
    'account.id': { ops: ALL_OPS, value: ACCOUNT_ID },
    'account.balance': { ops: ALL_OPS, value: /^\d{1,19}$/ },
    'account.publickey': { ops: EQ, value: /^(0x)?[0-9a-fA-F]{64,66}$/ },
    timestamp: { ops: ['eq', 'lt', 'lte'] as const, value: VALUE.timestamp },
  };
  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/balances$/,
      async handle(req) {
        const q = parseQuery(req.search, rules, { order: 'desc' });
        const snapshot = snapshotFor(view, q.filters.get('timestamp'));
        // Ids compare numerically; an address or alias names one account, compared by its number.
        const idFilters = accountIdFilters(q.filters.get('account.id'))?.map((f) => ({
          op: f.op,
          value: String(entityNum(f.value) ?? lookupEntity(view, f.value)?.num ?? -1),
        }));
        const publicKey = lastValue(q, 'account.publickey')?.toLowerCase().replace(/^(0x)?/, '0x');
        const idMatches = matcher(idFilters, BigInt);
        const balanceMatches = matcher(q.filters.get('account.balance'), BigInt);
        const candidates = [...view.accounts()]
          .filter((a) => idMatches(BigInt(a.num)) && (publicKey === undefined || a.publicKey?.toLowerCase() === publicKey))
          .sort((a, b) => a.num - b.num);
        const rows = snapshot
          ? await Promise.all(candidates.map(async (a) => ({ account: a, balance: await balanceAt(view, a, snapshot) })))
          : [];
        const matching = rows.filter((r) => balanceMatches(BigInt(r.balance)));
        const { rows: shown, full } = page(matching, q);
        const last = shown.at(-1);
        return {
          timestamp: snapshot?.timestamp ?? null,
          // Token balances are today's, whatever the timestamp: the sandbox keeps no token history.
          balances: shown.map((r) => ({ account: r.account.id, balance: r.balance, tokens: tokenBalancesOf(view, r.account.id) })),
          links: { next: full && last ? nextLink(req.path, q, [['account.id', q.order === 'asc' ? 'gt' : 'lt', last.account.id]]) : null },
        };
      },
    },
  ];
}
