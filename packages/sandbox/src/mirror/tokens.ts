/**
 * Tokens (HTS): `/api/v1/tokens`, `/api/v1/tokens/{tokenId}`, `/api/v1/tokens/{tokenId}/balances`,
 * `/api/v1/tokens/{tokenId}/nfts` and `/api/v1/tokens/{tokenId}/nfts/{serialNumber}`, in the shapes of the mirror
 * node's OpenAPI document (v0.160: TokenInfo, TokenBalancesResponse, Nfts, Nft). No custom fees or pausing.
 */
import type { LedgerView } from '../ledger/view.js';
import type { KeyRef, LedgerToken } from '../ledger/tokens.js';
import type { LedgerNft } from '../ledger/nfts.js';
import { invalidParameter, notFound } from './errors.js';
import { entityNum } from './format.js';
import type { Route } from './http.js';
import { EQ, RANGE_OPS, VALUE, lastValue, matcher, nextLink, page, parseQuery } from './query.js';

const TOKEN_ID = /^(\d{1,10}\.){0,2}\d{1,10}$/;
const NANOS_PER_SECOND = 1_000_000_000n;

const keyBody = (k: KeyRef | undefined) => (k ? { _type: k.type, key: k.key } : null);
const adminKey = (t: LedgerToken) => keyBody(t.keys.admin);
export const SERIAL = /^\d{1,19}$/;

/** The Nft schema; `deleted` stays false (no burn or wipe in the sandbox). */
export function nftBody(n: LedgerNft) {
  return {
    account_id: n.owner,
    created_timestamp: n.createdTimestamp,
    delegating_spender: n.delegatingSpender ?? null,
    deleted: false,
    metadata: Buffer.from(n.metadata).toString('base64'),
    modified_timestamp: n.modifiedTimestamp,
    serial_number: n.serial,
    spender: n.spender ?? null,
    token_id: n.token,
  };
}
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
    fee_schedule_key: keyBody(t.keys.feeSchedule),
    freeze_default: t.freezeDefault,
    freeze_key: keyBody(t.keys.freeze),
    initial_supply: t.initialSupply.toString(),
    kyc_key: keyBody(t.keys.kyc),
    max_supply: t.maxSupply.toString(),
    memo: t.memo,
    metadata: '',
    metadata_key: keyBody(t.keys.metadata),
    modified_timestamp: t.modifiedTimestamp,
    name: t.name,
    pause_key: keyBody(t.keys.pause),
    pause_status: t.keys.pause ? 'UNPAUSED' : 'NOT_APPLICABLE',
    supply_key: keyBody(t.keys.supply),
    supply_type: t.supplyType,
    symbol: t.symbol,
    token_id: t.id,
    total_supply: t.totalSupply.toString(),
    treasury_account_id: t.treasury,
    type: t.type,
    wipe_key: keyBody(t.keys.wipe),
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
  const nftRules = {
    'account.id': { ops: EQ, value: VALUE.entityId },
    serialnumber: { ops: RANGE_OPS, value: SERIAL },
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
          (type === undefined || type === 'ALL' || type === t.type) &&
          (key === undefined || t.keys.admin?.key.toLowerCase() === key),
        );
        const last = rows.at(-1);
        return {
          tokens: rows.map((t) => ({ admin_key: adminKey(t), decimals: t.decimals, metadata: '', name: t.name, symbol: t.symbol, token_id: t.id, type: t.type })),
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
    {
      method: 'GET',
      pattern: /^\/api\/v1\/tokens\/([^/]+)\/nfts$/,
      handle(req) {
        const q = parseQuery(req.search, nftRules, { order: 'desc' });
        const token = requireToken(req.params[0]);
        const owner = lastValue(q, 'account.id');
        const serialMatches = matcher(q.filters.get('serialnumber'), BigInt);
        const { rows, full } = page(view.tokenState().nfts.ofToken(token.id), q, (n) =>
          serialMatches(BigInt(n.serial)) && (owner === undefined || num(n.owner) === num(owner)),
        );
        const last = rows.at(-1);
        return {
          nfts: rows.map(nftBody),
          links: { next: full && last ? nextLink(req.path, q, [['serialnumber', q.order === 'asc' ? 'gt' : 'lt', String(last.serial)]]) : null },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/tokens\/([^/]+)\/nfts\/([^/]+)$/,
      handle(req) {
        parseQuery(req.search, {});
        const token = requireToken(req.params[0]);
        if (!SERIAL.test(req.params[1]) || BigInt(req.params[1]) === 0n) throw invalidParameter('serialnumber');
        const nft = view.tokenState().nfts.nft(token.id, Number(req.params[1]));
        if (!nft) throw notFound();
        return nftBody(nft);
      },
    },
  ];
}
