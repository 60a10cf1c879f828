/**
 * An account's token side: `/api/v1/accounts/{id}/tokens` (TokenRelationshipResponse), `/accounts/{id}/nfts` (Nfts),
 * and its allowances as owner, `/accounts/{id}/allowances/crypto|tokens|nfts`, in the shapes and default orders of
 * the mirror node's OpenAPI document (v0.160). Allowances show their last change as `timestamp.from`; the sandbox
 * keeps no history, so `timestamp.to` is always null.
 */
import type { LedgerView } from '../ledger/view.js';
import type { AmountAllowance } from '../ledger/allowances.js';
import { requireAccount } from './entities.js';
import { invalidParameter } from './errors.js';
import { entityNum } from './format.js';
import type { Route } from './http.js';
import { EQ, RANGE_OPS, VALUE, lastValue, matcher, nextLink, page, parseQuery, type ParamRule } from './query.js';
import { SERIAL, nftBody } from './tokens.js';

const num = (id: string) => BigInt(entityNum(id) ?? -1);
const byNum = <T>(key: (row: T) => string) => (a: T, b: T) => Number(num(key(a)) - num(key(b)));

/** TokenBalance entries for an account's fungible and non-fungible holdings (the `balance.tokens` of /accounts/{id}). */
export function tokenBalancesOf(view: LedgerView, account: string): Array<{ token_id: string; balance: number }> {
  return view
    .tokenState()
    .ledger.relationsOf(account)
    .map(({ token, relation }) => ({ token_id: token.id, balance: Number(relation.balance) }))
    .sort(byNum((r) => r.token_id));
}

function amountBody(a: AmountAllowance) {
  return {
    amount: Number(a.amount),
    amount_granted: Number(a.amountGranted),
    owner: a.owner,
    spender: a.spender,
    timestamp: { from: a.timestamp, to: null },
    ...(a.token ? { token_id: a.token } : {}),
  };
}

export function accountTokenRoutes(view: LedgerView): Route[] {
  const idRule = { ops: RANGE_OPS, value: VALUE.entityId };
  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/accounts\/([^/]+)\/tokens$/,
      handle(req) {
        const q = parseQuery(req.search, { 'token.id': idRule }, { order: 'asc' });
        const account = requireAccount(view, req.params[0]);
        const idMatches = matcher(q.filters.get('token.id'), num);
        const relations = view.tokenState().ledger.relationsOf(account.id).sort(byNum((r) => r.token.id));
        const { rows, full } = page(relations, q, (r) => idMatches(num(r.token.id)));
        const last = rows.at(-1);
        return {
          tokens: rows.map(({ token, relation }) => ({
            automatic_association: false,
            balance: Number(relation.balance),
            created_timestamp: relation.createdTimestamp,
            decimals: token.decimals,
            freeze_status: relation.freeze,
            kyc_status: relation.kyc,
            token_id: token.id,
          })),
          links: { next: full && last ? nextLink(req.path, q, [['token.id', q.order === 'asc' ? 'gt' : 'lt', last.token.id]]) : null },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/accounts\/([^/]+)\/nfts$/,
      handle(req) {
        const q = parseQuery(
          req.search,
          { 'token.id': idRule, serialnumber: { ops: RANGE_OPS, value: SERIAL }, 'spender.id': { ops: RANGE_OPS, value: VALUE.entityId } },
          { order: 'desc' },
        );
        const account = requireAccount(view, req.params[0]);
        // The real node wants a token.id beside any serialnumber filter (accounts.js getNftsByAccountId).
        if (q.filters.has('serialnumber') && !q.filters.has('token.id')) throw invalidParameter('serialnumber');
        const state = view.tokenState();
        const tokenOrder = state.tokens().map((t) => t.id).sort(byNum((id) => id));
        const tokenMatches = matcher(q.filters.get('token.id'), num);
        const serialMatches = matcher(q.filters.get('serialnumber'), BigInt);
        const spenderMatches = matcher(q.filters.get('spender.id'), num);
        const owned = state.nfts.ofOwner(account.id, tokenOrder);
        const { rows, full } = page(owned, q, (n) =>
          tokenMatches(num(n.token)) && serialMatches(BigInt(n.serial)) && (!q.filters.has('spender.id') || (n.spender !== undefined && spenderMatches(num(n.spender)))),
        );
        const last = rows.at(-1);
        const [tokenOp, serialOp] = q.order === 'asc' ? (['gte', 'gt'] as const) : (['lte', 'lt'] as const);
        return {
          nfts: rows.map(nftBody),
          links: { next: full && last ? nextLink(req.path, q, [['token.id', tokenOp, last.token], ['serialnumber', serialOp, String(last.serial)]]) : null },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/accounts\/([^/]+)\/allowances\/(crypto|tokens)$/,
      handle(req) {
        const crypto = req.params[1] === 'crypto';
        const rules: Record<string, ParamRule> = crypto ? { 'spender.id': idRule } : { 'spender.id': idRule, 'token.id': idRule };
        const q = parseQuery(req.search, rules, { order: crypto ? 'desc' : 'asc' });
        const account = requireAccount(view, req.params[0]);
        const spenderMatches = matcher(q.filters.get('spender.id'), num);
        const tokenMatches = matcher(q.filters.get('token.id'), num);
        // Ordered by spender (and token) as the real node pages them.
        const all = view
          .tokenState()
          .allowances.amounts(account.id, crypto ? 'hbar' : 'token')
          .sort((a, b) => Number(num(a.spender) - num(b.spender)) || Number(num(a.token ?? '0.0.0') - num(b.token ?? '0.0.0')));
        const { rows, full } = page(all, q, (a) => spenderMatches(num(a.spender)) && (a.token === undefined || tokenMatches(num(a.token))));
        const last = rows.at(-1);
        const asc = q.order === 'asc';
        const next = (l: AmountAllowance) =>
          l.token === undefined
            ? nextLink(req.path, q, [['spender.id', asc ? 'gt' : 'lt', l.spender]])
            : nextLink(req.path, q, [['spender.id', asc ? 'gte' : 'lte', l.spender], ['token.id', asc ? 'gt' : 'lt', l.token]]);
        return { allowances: rows.map(amountBody), links: { next: full && last ? next(last) : null } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/accounts\/([^/]+)\/allowances\/nfts$/,
      handle(req) {
        const q = parseQuery(req.search, { 'account.id': idRule, 'token.id': idRule, owner: { ops: EQ, value: VALUE.boolean } }, { order: 'asc' });
        const account = requireAccount(view, req.params[0]);
        // owner=true (the default) lists what the account granted; owner=false what it was granted.
        const asOwner = lastValue(q, 'owner') !== 'false';
        const otherMatches = matcher(q.filters.get('account.id'), num);
        const tokenMatches = matcher(q.filters.get('token.id'), num);
        const all = view
          .tokenState()
          .allowances.nftAllowances()
          .filter((a) => (asOwner ? a.owner : a.spender) === account.id)
          .sort((a, b) => Number(num(asOwner ? a.spender : a.owner) - num(asOwner ? b.spender : b.owner)) || Number(num(a.token) - num(b.token)));
        const { rows, full } = page(all, q, (a) => otherMatches(num(asOwner ? a.spender : a.owner)) && tokenMatches(num(a.token)));
        const last = rows.at(-1);
        const op = q.order === 'asc' ? 'gt' : 'lt';
        return {
          allowances: rows.map((a) => ({ approved_for_all: a.approvedForAll, owner: a.owner, spender: a.spender, timestamp: { from: a.timestamp, to: null }, token_id: a.token })),
          links: {
            next: full && last ? nextLink(req.path, q, [['account.id', q.order === 'asc' ? 'gte' : 'lte', asOwner ? last.spender : last.owner], ['token.id', op, last.token]]) : null,
          },
        };
      },
    },
  ];
}
