/**
 * The ledger's token service (HTS) as the sandbox models it: fungible and non-fungible tokens with a treasury,
 * associations (an account holds a token only once associated) with their KYC and freeze flags, and fungible
 * balances. NFTs themselves live in {@link NftStore} (nfts.ts) and allowances in allowances.ts; tokenService.ts puts
 * them together. Every change is all or nothing: a transfer that fails any check moves nothing.
 *
 * Statuses follow the services' token handlers (hedera-services `TokenCreateHandler`, `TokenAssociateToAccountHandler`,
 * `CryptoTransferHandler`) and the ResponseCodeEnum names of `@hashgraph/proto`.
 */

export type TokenType = 'FUNGIBLE_COMMON' | 'NON_FUNGIBLE_UNIQUE';
/**
 * A simple key (one ED25519 or ECDSA public key, raw hex), or a key no signature satisfies, such as a contract-ID
 * key a token created from a contract gets: the `Key` message's bytes (hex), which the mirror node shows as
 * `ProtobufEncoded`.
 */
export interface KeyRef {
  type: 'ED25519' | 'ECDSA_SECP256K1' | 'ProtobufEncoded';
  key: string;
}
/** The token keys the sandbox models (TokenCreateTransactionBody's key fields). */
export type TokenKeyRole = 'admin' | 'kyc' | 'freeze' | 'wipe' | 'supply' | 'feeSchedule' | 'pause' | 'metadata';

export interface LedgerToken {
  /** `0.0.<num>` */
  id: string;
  type: TokenType;
  name: string;
  symbol: string;
  decimals: number;
  memo: string;
  initialSupply: bigint;
  totalSupply: bigint;
  /** INFINITE tokens record Long.MAX_VALUE as their maximum, as the mirror node shows. */
  supplyType: 'INFINITE' | 'FINITE';
  maxSupply: bigint;
  freezeDefault: boolean;
  treasury: string;
  keys: Partial<Record<TokenKeyRole, KeyRef>>;
  autoRenewAccount?: string;
  autoRenewPeriodSeconds?: number;
  createdTimestamp: string;
  modifiedTimestamp: string;
}

/** What a TokenCreate asks for. */
export type TokenSpec = Omit<LedgerToken, 'id' | 'totalSupply' | 'createdTimestamp' | 'modifiedTimestamp'>;

/** An account's relationship with a token (the mirror node's TokenRelationship). */
export interface TokenRelation {
  /** Fungible: smallest units; NFT: how many serials the account owns. */
  balance: bigint;
  kyc: 'NOT_APPLICABLE' | 'GRANTED' | 'REVOKED';
  freeze: 'NOT_APPLICABLE' | 'FROZEN' | 'UNFROZEN';
  createdTimestamp: string;
}

export interface TokenMove {
  token: string;
  account: string;
  amount: bigint;
  /** Debited under an allowance the payer holds (AccountAmount.is_approval). */
  isApproval?: boolean;
}

/** Long.MAX_VALUE: the ledger's maximum supply of an INFINITE token. */
export const INFINITE_MAX_SUPPLY = 9_223_372_036_854_775_807n;

export class TokenLedger {
  readonly #tokens: LedgerToken[] = [];
  readonly #byId = new Map<string, LedgerToken>();
  /** token id -> account id -> relationship; an entry is an association. */
  readonly #relations = new Map<string, Map<string, TokenRelation>>();

  tokens(): readonly LedgerToken[] {
    return this.#tokens;
  }

  token(id: string): LedgerToken | undefined {
    return this.#byId.get(id);
  }

  /** Holders of a token (associated accounts) and their balances. */
  balances(id: string): ReadonlyMap<string, bigint> {
    return new Map([...(this.#relations.get(id) ?? [])].map(([account, r]) => [account, r.balance]));
  }

  relation(token: string, account: string): TokenRelation | undefined {
    return this.#relations.get(token)?.get(account);
  }

  /** A token's associated accounts and their relationships. */
  holders(token: string): Array<[string, TokenRelation]> {
    return [...(this.#relations.get(token) ?? [])];
  }

  /** Every token the account is associated with, in token creation order. */
  relationsOf(account: string): Array<{ token: LedgerToken; relation: TokenRelation }> {
    return this.#tokens.flatMap((token) => {
      const relation = this.#relations.get(token.id)?.get(account);
      return relation ? [{ token, relation }] : [];
    });
  }

  /**
   * Creates the token and associates its treasury with KYC granted and unfrozen (TokenCreateHandler does both for
   * the treasury), crediting it the initial supply.
   */
  create(token: LedgerToken): void {
    this.#tokens.push(token);
    this.#byId.set(token.id, token);
    const treasury: TokenRelation = {
      balance: token.initialSupply,
      kyc: token.keys.kyc ? 'GRANTED' : 'NOT_APPLICABLE',
      freeze: token.keys.freeze ? 'UNFROZEN' : 'NOT_APPLICABLE',
      createdTimestamp: token.createdTimestamp,
    };
    this.#relations.set(token.id, new Map([[token.treasury, treasury]]));
  }

  /**
   * The ledger's status for associating `account` with `tokens`. A new relationship starts with KYC revoked when the
   * token has a KYC key, and frozen when it has a freeze key and `freeze_default` (TokenRelation in state.proto).
   */
  associate(account: string, tokens: string[], timestamp: string): string {
    if (tokens.length === 0) return 'EMPTY_TOKEN_LIST';
    if (new Set(tokens).size !== tokens.length) return 'TOKEN_ID_REPEATED_IN_TOKEN_LIST';
    for (const id of tokens) {
      const holders = this.#relations.get(id);
      if (!holders) return 'INVALID_TOKEN_ID';
      if (holders.has(account)) return 'TOKEN_ALREADY_ASSOCIATED_TO_ACCOUNT';
    }
    for (const id of tokens) {
      const t = this.#byId.get(id)!;
      this.#relations.get(id)!.set(account, {
        balance: 0n,
        kyc: t.keys.kyc ? 'REVOKED' : 'NOT_APPLICABLE',
        freeze: !t.keys.freeze ? 'NOT_APPLICABLE' : t.freezeDefault ? 'FROZEN' : 'UNFROZEN',
        createdTimestamp: timestamp,
      });
    }
    return 'SUCCESS';
  }

  /**
   * Whether `account` may send or receive `token` now: associated, not frozen, KYC granted where the token asks for
   * it; the statuses CryptoTransferHandler answers, checked in that order.
   */
  usable(token: string, account: string): string {
    const relation = this.relation(token, account);
    if (!relation) return this.#byId.has(token) ? 'TOKEN_NOT_ASSOCIATED_TO_ACCOUNT' : 'INVALID_TOKEN_ID';
    if (relation.freeze === 'FROZEN') return 'ACCOUNT_FROZEN_FOR_TOKEN';
    if (relation.kyc === 'REVOKED') return 'ACCOUNT_KYC_NOT_GRANTED_FOR_TOKEN';
    return 'SUCCESS';
  }

  /** Checks fungible moves (token type, usable relationships, zero sum per token, enough balance); changes nothing. */
  checkFungible(moves: TokenMove[]): string {
    const sums = new Map<string, bigint>();
    for (const m of moves) {
      const token = this.#byId.get(m.token);
      if (!token) return 'INVALID_TOKEN_ID';
      if (token.type !== 'FUNGIBLE_COMMON') return 'ACCOUNT_AMOUNT_TRANSFERS_ONLY_ALLOWED_FOR_FUNGIBLE_COMMON';
      const usable = this.usable(m.token, m.account);
      if (usable !== 'SUCCESS') return usable;
      sums.set(m.token, (sums.get(m.token) ?? 0n) + m.amount);
    }
    if ([...sums.values()].some((s) => s !== 0n)) return 'TRANSFERS_NOT_ZERO_SUM_FOR_TOKEN';
    const net = new Map<string, bigint>();
    for (const m of moves) net.set(`${m.token}/${m.account}`, (net.get(`${m.token}/${m.account}`) ?? 0n) + m.amount);
    for (const m of moves) {
      if (this.relation(m.token, m.account)!.balance + net.get(`${m.token}/${m.account}`)! < 0n) return 'INSUFFICIENT_TOKEN_BALANCE';
    }
    return 'SUCCESS';
  }

  /** Applies moves already checked; also used for NFT counts (one unit per serial). */
  apply(moves: Array<{ token: string; account: string; amount: bigint }>): void {
    for (const m of moves) this.relation(m.token, m.account)!.balance += m.amount;
  }

  /** Adds minted supply to the token and its treasury. */
  mint(token: LedgerToken, amount: bigint, timestamp: string): void {
    token.totalSupply += amount;
    token.modifiedTimestamp = timestamp;
    this.relation(token.id, token.treasury)!.balance += amount;
  }
}
