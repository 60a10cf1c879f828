/**
 * Tokens (HTS): `/api/v1/tokens`, `/api/v1/tokens/{tokenId}` and `/api/v1/tokens/{tokenId}/balances`, in the real
 * node's shapes. The sandbox has fungible tokens only, without custom fees or keys other than the admin key.
 */
import type { LedgerView } from '../ledger/view.js';
import type { LedgerToken } from '../ledger/tokens.js';
import { invalidParameter, notFound } from './errors.js';
import { entityNum } from './format.js';
import type { Route } from './http.js';
import { EQ, RANGE_OPS, VALUE, lastValue, matcher, nextLink, page, parseQuery } from './query.js';

/** Long.MAX_VALUE: what the ledger records as the maximum of a token whose supply is INFINITE. */
const INFINITE_MAX_SUPPLY = '9223372036854775807';
const TOKEN_ID = /^(\d{1,10}\.){0,2}\d{1,10}$/;
const NANOS_PER_SECOND = 1_000_000_000n;

const adminKey = (t: LedgerToken) => (t.adminKey ? { _type: t.adminKey.type, key: t.adminKey.key } : null);
const num = (id: string) => BigInt(entityNum(id) ?? -1);

function tokenInfo(t: LedgerToken) {
  const createdNanos = BigInt(t.createdTimestamp.replace('.', ''));
  const renew = t.autoRenewPeriodSeconds ?? null;
  return {
    admin_key: adminKey(t),
    auto_renew_account: t.autoRenewAccount ?? null,
    auto_renew_period: renew,
    created_timestamp: t.createdTimestamp,
    custom_fees: { created_timestamp: t.createdTimestamp, fixed_fees: [], fractional_fees: [] },
    decimals: String(t.decimals),
    deleted: false,
    expiry_timestamp: renew === null ? null : Number(createdNanos + BigInt(renew) * NANOS_PER_SECOND),
    fee_schedule_key: null,
    freeze_default: false,
    freeze_key: null,
    initial_supply: t.initialSupply.toString(),
    kyc_key: null,
    max_supply: INFINITE_MAX_SUPPLY,
    memo: t.memo,
    metadata: '',
    metadata_key: null,
    modified_timestamp: t.createdTimestamp,
    name: t.name,
    pause_key: null,
    pause_status: 'NOT_APPLICABLE',
    supply_key: null,
    supply_type: 'INFINITE',
    symbol: t.symbol,
    token_id: t.id,
    total_supply: t.totalSupply.toString(),
    treasury_account_id: t.treasury,
    type: 'FUNGIBLE_COMMON',
    wipe_key: null,
  };
}

export function tokenRoutes(view: LedgerView): Route[] {
  const listRules = {
    'account.id': { ops: EQ, value: VALUE.entityId },
    name: { ops: EQ, value: /^.{3,100}$/ },
    publickey: { ops: EQ, value: /^(0x)?[0-9a-fA-F]{64,66}$/ },
    'token.id': { ops: RANGE_OPS, value: TOKEN_ID },
    type: { ops: EQ, value: /^(ALL|FUNGIBLE_COMMON|NON_FUNGIBLE_UNIQUE)$/i },
  };
  const balanceRules = {
    'account.id': { ops: RANGE_OPS, value: VALUE.entityId },
    'account.balance': { ops: RANGE_OPS, value: /^\d{1,19}$/ },
  };

  function requireToken(id: string): LedgerToken {
    if (!TOKEN_ID.test(id)) throw invalidParameter('tokenId');
    const token = view.tokens().find((t) => num(t.id) === num(id));
    if (!token) throw notFound();
    return token;
  }

  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/tokens$/,
      handle(req) {
        const q = parseQuery(req.search, listRules, { order: 'asc' });
        const holder = lastValue(q, 'account.id');
        const name = lastValue(q, 'name');
        const type = lastValue(q, 'type')?.toUpperCase();
        const key = lastValue(q, 'publickey')?.toLowerCase().replace(/^0x/, '');
        const idMatches = matcher(q.filters.get('token.id'), num);
        const { rows, full } = page(view.tokens(), q, (t) =>
          idMatches(num(t.id)) &&
          (holder === undefined || view.tokenBalances(t.id).has(`0.0.${entityNum(holder)}`)) &&
          (name === undefined || t.name === name) &&
          (type === undefined || type === 'ALL' || type === 'FUNGIBLE_COMMON') &&
          (key === undefined || t.adminKey?.key.toLowerCase() === key),
        );
        const last = rows.at(-1);
        return {
          tokens: rows.map((t) => ({ admin_key: adminKey(t), decimals: t.decimals, metadata: '', name: t.name, symbol: t.symbol, token_id: t.id, type: 'FUNGIBLE_COMMON' })),
          links: { next: full && last ? nextLink(req.path, q, [['token.id', q.order === 'asc' ? 'gt' : 'lt', last.id]]) : null },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/tokens\/([^/]+)$/,
      handle(req) {
        parseQuery(req.search, { timestamp: { ops: RANGE_OPS, value: VALUE.timestamp } });
        return tokenInfo(requireToken(req.params[0]));
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/tokens\/([^/]+)\/balances$/,
      handle(req) {
        const q = parseQuery(req.search, balanceRules, { order: 'desc' });
        const token = requireToken(req.params[0]);
        const idMatches = matcher(q.filters.get('account.id'), num);
        const balanceMatches = matcher(q.filters.get('account.balance'), BigInt);
        const holders = [...view.tokenBalances(token.id)].sort(([a], [b]) => Number(num(a) - num(b)));
        const { rows, full } = page(holders, q, ([account, balance]) => idMatches(num(account)) && balanceMatches(balance));
        const last = rows.at(-1);
        const newest = view.blocks().at(-1);
        return {
          timestamp: newest?.timestampTo ?? null,
          balances: rows.map(([account, balance]) => ({ account, balance: Number(balance), decimals: token.decimals })),
          links: { next: full && last ? nextLink(req.path, q, [['account.id', q.order === 'asc' ? 'gt' : 'lt', last[0]]]) : null },
        };
      },
    },
  ];
}
