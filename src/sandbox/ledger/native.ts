/**
 * Decoding of the ledger's own service transactions the sandbox serves (CryptoCreate, CryptoTransfer with hbar and
 * fungible token moves, TokenCreate, TokenAssociate) into the chain's work, with the accounts whose keys must sign
 * besides the payer: whoever is debited, a new token's treasury and admin key, the account being associated.
 */
import { PublicKey } from '@hashgraph/sdk';
import type { proto } from '@hashgraph/proto';
import type { NativeWork } from './chain.js';
import { accountRef } from './aliases.js';
import { idOf, toBigInt } from './hapi.js';

export const NATIVE_METHODS: Record<string, string> = {
  cryptoCreateAccount: 'createAccount',
  cryptoTransfer: 'cryptoTransfer',
  tokenCreation: 'createToken',
  tokenAssociate: 'associateTokens',
};

export interface NativeDecoded {
  work: NativeWork;
  /** Accounts whose keys must have signed. */
  signers: string[];
  /** Keys that must have signed that belong to no account (a new token's admin key). */
  keys: PublicKey[];
}

/** A simple key (one ED25519 or ECDSA public key); key lists and thresholds are not modelled. */
function simpleKey(key: proto.IKey | null | undefined): PublicKey | undefined {
  if (key?.ed25519?.length) return PublicKey.fromBytesED25519(key.ed25519);
  if (key?.ECDSASecp256k1?.length) return PublicKey.fromBytesECDSA(key.ECDSASecp256k1);
  return undefined;
}

/** The work a body asks for, or the precheck status that refuses it. */
export function decodeNative(body: proto.TransactionBody): NativeDecoded | string {
  switch (body.data) {
    case 'cryptoCreateAccount': {
      const c = body.cryptoCreateAccount!;
      const key = simpleKey(c.key);
      if (!key) return 'KEY_REQUIRED';
      return { work: { name: 'CRYPTOCREATEACCOUNT', key, initialBalanceTinybar: toBigInt(c.initialBalance) }, signers: [], keys: [] };
    }
    case 'cryptoTransfer': {
      const t = body.cryptoTransfer!;
      const hbar: Array<{ account: string; amount: bigint }> = [];
      for (const aa of t.transfers?.accountAmounts ?? []) {
        // An account may be named by alias (HIP-32 key, HIP-583 EVM address): the chain resolves or creates it.
        const account = accountRef(aa.accountID);
        if (!account) return 'INVALID_ACCOUNT_ID';
        hbar.push({ account, amount: toBigInt(aa.amount) });
      }
      const tokens: Array<{ token: string; account: string; amount: bigint }> = [];
      for (const list of t.tokenTransfers ?? []) {
        const token = idOf(list.token);
        if (!token) return 'INVALID_TOKEN_ID';
        if (list.nftTransfers?.length) return 'NOT_SUPPORTED';
        for (const aa of list.transfers ?? []) {
          const account = idOf(aa.accountID);
          if (!account) return 'INVALID_ACCOUNT_ID';
          tokens.push({ token, account, amount: toBigInt(aa.amount) });
        }
      }
      if (hbar.length === 0 && tokens.length === 0) return 'EMPTY_TRANSACTION_BODY';
      const debited = [...hbar, ...tokens].filter((m) => m.amount < 0n).map((m) => m.account);
      return { work: { name: 'CRYPTOTRANSFER', hbar, tokens }, signers: [...new Set(debited)], keys: [] };
    }
    case 'tokenCreation': {
      const c = body.tokenCreation!;
      // Only fungible tokens: 0 is FUNGIBLE_COMMON.
      if (Number(c.tokenType ?? 0) !== 0) return 'NOT_SUPPORTED';
      const treasury = idOf(c.treasury);
      if (!treasury) return 'INVALID_TREASURY_ACCOUNT_FOR_TOKEN';
      const adminKey = simpleKey(c.adminKey);
      if (c.adminKey && !adminKey) return 'INVALID_ADMIN_KEY';
      const autoRenewAccount = idOf(c.autoRenewAccount);
      const token = {
        name: c.name ?? '',
        symbol: c.symbol ?? '',
        decimals: c.decimals ?? 0,
        memo: c.memo ?? '',
        initialSupply: toBigInt(c.initialSupply),
        treasury,
        ...(adminKey ? { adminKey: { type: adminKey.type === 'ED25519' ? ('ED25519' as const) : ('ECDSA_SECP256K1' as const), key: adminKey.toStringRaw() } } : {}),
        ...(autoRenewAccount ? { autoRenewAccount } : {}),
        ...(c.autoRenewPeriod?.seconds != null ? { autoRenewPeriodSeconds: Number(toBigInt(c.autoRenewPeriod.seconds)) } : {}),
      };
      return { work: { name: 'TOKENCREATION', token }, signers: [treasury], keys: adminKey ? [adminKey] : [] };
    }
    case 'tokenAssociate': {
      const a = body.tokenAssociate!;
      const account = idOf(a.account);
      if (!account) return 'INVALID_ACCOUNT_ID';
      const tokens: string[] = [];
      for (const t of a.tokens ?? []) {
        const id = idOf(t);
        if (!id) return 'INVALID_TOKEN_ID';
        tokens.push(id);
      }
      return { work: { name: 'TOKENASSOCIATE', account, tokens }, signers: [account], keys: [] };
    }
  }
  return 'NOT_SUPPORTED';
}
