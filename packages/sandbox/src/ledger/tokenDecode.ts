/**
 * Decoding of the token service's transactions (TokenCreate, TokenMint, KYC grant and revoke, freeze and unfreeze,
 * CryptoApproveAllowance) from their protobuf bodies (`@hashgraph/proto` TransactionBody), with who must sign:
 * a new token's treasury and admin key; the token's supply, KYC or freeze key; an allowance's owner (or the
 * delegating spender who grants from an approve-for-all).
 */
import { PublicKey } from '@hashgraph/sdk';
import type { proto } from '@hashgraph/proto';
import type { NativeDecoded } from './nativeWork.js';
import { idOf, toBigInt } from './hapi.js';
import { INFINITE_MAX_SUPPLY, type KeyRef, type TokenKeyRole, type TokenSpec } from './tokens.js';

/** The gRPC method (TokenService / CryptoService) each body arrives on. */
export const TOKEN_METHODS: Record<string, string> = {
  tokenCreation: 'createToken',
  tokenMint: 'mintToken',
  tokenGrantKyc: 'grantKycToTokenAccount',
  tokenRevokeKyc: 'revokeKycFromTokenAccount',
  tokenFreeze: 'freezeTokenAccount',
  tokenUnfreeze: 'unfreezeTokenAccount',
  cryptoApproveAllowance: 'approveAllowances',
};

/** A simple key (one ED25519 or ECDSA public key); key lists and thresholds are not modelled. */
export function simpleKey(key: proto.IKey | null | undefined): PublicKey | undefined {
  if (key?.ed25519?.length) return PublicKey.fromBytesED25519(key.ed25519);
  if (key?.ECDSASecp256k1?.length) return PublicKey.fromBytesECDSA(key.ECDSASecp256k1);
  return undefined;
}

export function keyRef(key: PublicKey): KeyRef {
  return { type: key.type === 'ED25519' ? 'ED25519' : 'ECDSA_SECP256K1', key: key.toStringRaw() };
}

/** The public key that signs for a key; null for one no signature satisfies (a contract-ID key). */
export function publicKeyOf(ref: KeyRef): PublicKey | null {
  const bytes = Buffer.from(ref.key, 'hex');
  if (ref.type === 'ProtobufEncoded') return null;
  return ref.type === 'ED25519' ? PublicKey.fromBytesED25519(bytes) : PublicKey.fromBytesECDSA(bytes);
}

/** TokenCreateTransactionBody's key fields and the status a malformed one gets. */
const KEY_FIELDS: Array<[TokenKeyRole, keyof proto.ITokenCreateTransactionBody, string]> = [
  ['admin', 'adminKey', 'INVALID_ADMIN_KEY'],
  ['kyc', 'kycKey', 'INVALID_KYC_KEY'],
  ['freeze', 'freezeKey', 'INVALID_FREEZE_KEY'],
  ['wipe', 'wipeKey', 'INVALID_WIPE_KEY'],
  ['supply', 'supplyKey', 'INVALID_SUPPLY_KEY'],
  ['feeSchedule', 'feeScheduleKey', 'INVALID_CUSTOM_FEE_SCHEDULE_KEY'],
  ['pause', 'pauseKey', 'INVALID_PAUSE_KEY'],
  ['metadata', 'metadataKey', 'INVALID_METADATA_KEY'],
];

function tokenCreate(c: proto.ITokenCreateTransactionBody): NativeDecoded | string {
  const treasury = idOf(c.treasury);
  if (!treasury) return 'INVALID_TREASURY_ACCOUNT_FOR_TOKEN';
  const keys: TokenSpec['keys'] = {};
  let admin: PublicKey | undefined;
  for (const [role, field, invalid] of KEY_FIELDS) {
    const given = c[field] as proto.IKey | null | undefined;
    if (!given) continue;
    const key = simpleKey(given);
    if (!key) return invalid;
    keys[role] = keyRef(key);
    if (role === 'admin') admin = key;
  }
  // TokenType 1 is NON_FUNGIBLE_UNIQUE; TokenSupplyType 1 is FINITE (basic_types.proto).
  const type = Number(c.tokenType ?? 0) === 1 ? 'NON_FUNGIBLE_UNIQUE' : 'FUNGIBLE_COMMON';
  const finite = Number(c.supplyType ?? 0) === 1;
  const autoRenewAccount = idOf(c.autoRenewAccount);
  const token: TokenSpec = {
    type,
    name: c.name ?? '',
    symbol: c.symbol ?? '',
    decimals: c.decimals ?? 0,
    memo: c.memo ?? '',
    initialSupply: toBigInt(c.initialSupply),
    supplyType: finite ? 'FINITE' : 'INFINITE',
    maxSupply: finite ? toBigInt(c.maxSupply) : INFINITE_MAX_SUPPLY,
    freezeDefault: c.freezeDefault === true,
    treasury,
    keys,
    ...(autoRenewAccount ? { autoRenewAccount } : {}),
    ...(c.autoRenewPeriod?.seconds != null ? { autoRenewPeriodSeconds: Number(toBigInt(c.autoRenewPeriod.seconds)) } : {}),
  };
  // TokenCreateHandler.preHandle: the treasury, the admin key and an auto-renew account sign.
  const signers = [treasury, ...(autoRenewAccount ? [autoRenewAccount] : [])];
  return { work: { name: 'TOKENCREATION', token }, signers, keys: admin ? [admin] : [] };
}

function accountAndToken(b: { token?: proto.ITokenID | null; account?: proto.IAccountID | null } | null | undefined) {
  const token = idOf(b?.token);
  if (!token) return 'INVALID_TOKEN_ID';
  const account = idOf(b?.account);
  if (!account) return 'INVALID_ACCOUNT_ID';
  return { token, account };
}

function approve(a: proto.ICryptoApproveAllowanceTransactionBody): NativeDecoded | string {
  const hbar = [];
  const tokens = [];
  const nfts = [];
  const signers: string[] = [];
  const owner = (id: proto.IAccountID | null | undefined) => {
    const o = id ? idOf(id) : undefined;
    if (o) signers.push(o);
    return o;
  };
  for (const c of a.cryptoAllowances ?? []) {
    const spender = idOf(c.spender);
    if (!spender) return 'INVALID_ALLOWANCE_SPENDER_ID';
    hbar.push({ owner: owner(c.owner), spender, amount: toBigInt(c.amount) });
  }
  for (const t of a.tokenAllowances ?? []) {
    const token = idOf(t.tokenId);
    const spender = idOf(t.spender);
    if (!token) return 'INVALID_TOKEN_ID';
    if (!spender) return 'INVALID_ALLOWANCE_SPENDER_ID';
    tokens.push({ token, owner: owner(t.owner), spender, amount: toBigInt(t.amount) });
  }
  for (const n of a.nftAllowances ?? []) {
    const token = idOf(n.tokenId);
    const spender = idOf(n.spender);
    if (!token) return 'INVALID_TOKEN_ID';
    if (!spender) return 'INVALID_ALLOWANCE_SPENDER_ID';
    const delegatingSpender = n.delegatingSpender ? idOf(n.delegatingSpender) : undefined;
    // A delegating spender signs in the owner's place (CryptoApproveAllowanceHandler.preHandle).
    const o = delegatingSpender ? (idOf(n.owner) ?? undefined) : owner(n.owner);
    if (delegatingSpender) signers.push(delegatingSpender);
    nfts.push({
      token,
      ...(o ? { owner: o } : {}),
      spender,
      serials: (n.serialNumbers ?? []).map((s) => Number(toBigInt(s))),
      ...(n.approvedForAll ? { approvedForAll: n.approvedForAll.value === true } : {}),
      ...(delegatingSpender ? { delegatingSpender } : {}),
    });
  }
  if (hbar.length + tokens.length + nfts.length === 0) return 'EMPTY_ALLOWANCES';
  return { work: { name: 'CRYPTOAPPROVEALLOWANCE', hbar, tokens, nfts }, signers: [...new Set(signers)], keys: [] };
}

/** The work a token body asks for, or the precheck status that refuses it; NOT_SUPPORTED for other bodies. */
export function decodeToken(body: proto.TransactionBody): NativeDecoded | string {
  switch (body.data) {
    case 'tokenCreation':
      return tokenCreate(body.tokenCreation!);
    case 'tokenMint': {
      const m = body.tokenMint!;
      const token = idOf(m.token);
      if (!token) return 'INVALID_TOKEN_ID';
      const work = { name: 'TOKENMINT' as const, token, amount: toBigInt(m.amount), metadata: (m.metadata ?? []).map((b) => Uint8Array.from(b)) };
      return { work, signers: [], keys: [], tokenKeys: [{ token, role: 'supply' }] };
    }
    case 'tokenGrantKyc':
    case 'tokenRevokeKyc':
    case 'tokenFreeze':
    case 'tokenUnfreeze': {
      const ids = accountAndToken(body[body.data]);
      if (typeof ids === 'string') return ids;
      const name = ({ tokenGrantKyc: 'TOKENGRANTKYC', tokenRevokeKyc: 'TOKENREVOKEKYC', tokenFreeze: 'TOKENFREEZE', tokenUnfreeze: 'TOKENUNFREEZE' } as const)[body.data];
      const role = name.endsWith('KYC') ? 'kyc' : 'freeze';
      return { work: { name, ...ids }, signers: [], keys: [], tokenKeys: [{ token: ids.token, role }] };
    }
    case 'cryptoApproveAllowance':
      return approve(body.cryptoApproveAllowance!);
  }
  return 'NOT_SUPPORTED';
}
