/**
 * The token service's transactions on the sandbox ledger: TokenCreate (fungible and non-fungible), TokenAssociate,
 * TokenMint, KYC grant and revoke, freeze and unfreeze, CryptoApproveAllowance, and the token side of
 * CryptoTransfer (fungible moves, NFT serials, approved spends). The chain charges fees and moves hbar; this module
 * owns token state (tokens.ts, nfts.ts, allowances.ts) and answers each transaction's final status.
 *
 * Statuses follow the hedera-services handlers of the same names (TokenMintHandler, TokenGrantKycToAccountHandler,
 * TokenFreezeAccountHandler, CryptoApproveAllowanceHandler with ApproveAllowanceValidator, CryptoTransferHandler)
 * and the status names of `@hashgraph/proto`'s ResponseCodeEnum.
 */
import { AllowanceBook } from './allowances.js';
import { NftStore, type NftMove } from './nfts.js';
import { TokenLedger, type KeyRef, type LedgerToken, type TokenKeyRole, type TokenMove, type TokenSpec } from './tokens.js';
import type { LedgerTransaction } from './view.js';
import type { TokenState } from './tokenState.js';

/**
 * Service fees in tinybar, on the scale of the sandbox's other fees (chain.ts FEES_TINYBAR: the fee schedule's USD
 * price x 10^8 tinybar, e.g. TokenCreate $1, TokenAssociate $0.05): TokenMint $0.001 (a fungible mint; an NFT mint
 * is $0.02 per serial on the network, not modelled), KYC and freeze changes $0.001 each, CryptoApproveAllowance
 * $0.05 (docs.hedera.com, "Transaction and query fees").
 */
export const TOKEN_FEES_TINYBAR = {
  TOKENMINT: 100_000n,
  TOKENGRANTKYC: 100_000n,
  TOKENREVOKEKYC: 100_000n,
  TOKENFREEZE: 100_000n,
  TOKENUNFREEZE: 100_000n,
  CRYPTOAPPROVEALLOWANCE: 5_000_000n,
} as const;

/** HIP-17: at most 10 serials per TokenMint and 100 bytes of metadata each (the network's default settings). */
const MAX_MINT_BATCH = 10;
const MAX_NFT_METADATA_BYTES = 100;

export type TokenWork =
  | { name: 'TOKENMINT'; token: string; amount: bigint; metadata: Uint8Array[] }
  | { name: 'TOKENGRANTKYC' | 'TOKENREVOKEKYC' | 'TOKENFREEZE' | 'TOKENUNFREEZE'; token: string; account: string }
  | {
      name: 'CRYPTOAPPROVEALLOWANCE';
      hbar: Array<{ owner?: string; spender: string; amount: bigint }>;
      tokens: Array<{ token: string; owner?: string; spender: string; amount: bigint }>;
      nfts: Array<{ token: string; owner?: string; spender: string; serials: number[]; approvedForAll?: boolean; delegatingSpender?: string }>;
    };

/** An hbar move of a CryptoTransfer, with its approval flag. */
export interface HbarMove {
  account: string;
  amount: bigint;
  isApproval?: boolean;
}

/** What a handled token transaction adds to its record. */
export interface TokenOutcome {
  result: string;
  entityId?: string;
  tokenTransfers?: TokenMove[];
  record?: Pick<LedgerTransaction, 'nftTransfers' | 'newTotalSupply' | 'serialNumbers'>;
}


/** The token an approved move spends, or undefined for hbar. */
const spentToken = (m: HbarMove | TokenMove): string | undefined => ('token' in m ? m.token : undefined);

const KYC_FREEZE: Record<string, { role: TokenKeyRole; missing: string; apply: (r: NonNullable<ReturnType<TokenLedger['relation']>>) => void }> = {
  TOKENGRANTKYC: { role: 'kyc', missing: 'TOKEN_HAS_NO_KYC_KEY', apply: (r) => (r.kyc = 'GRANTED') },
  TOKENREVOKEKYC: { role: 'kyc', missing: 'TOKEN_HAS_NO_KYC_KEY', apply: (r) => (r.kyc = 'REVOKED') },
  TOKENFREEZE: { role: 'freeze', missing: 'TOKEN_HAS_NO_FREEZE_KEY', apply: (r) => (r.freeze = 'FROZEN') },
  TOKENUNFREEZE: { role: 'freeze', missing: 'TOKEN_HAS_NO_FREEZE_KEY', apply: (r) => (r.freeze = 'UNFROZEN') },
};

export class TokenService implements TokenState {
  readonly ledger = new TokenLedger();
  readonly nfts = new NftStore();
  readonly allowances = new AllowanceBook();

  tokens(): readonly LedgerToken[] {
    return this.ledger.tokens();
  }
  token(id: string): LedgerToken | undefined {
    return this.ledger.token(id);
  }
  balances(id: string): ReadonlyMap<string, bigint> {
    return this.ledger.balances(id);
  }

  /** The key a token transaction needs signed by, if the token has it. */
  key(token: string, role: TokenKeyRole): KeyRef | undefined {
    return this.ledger.token(token)?.keys[role];
  }

  /** TokenCreateHandler's checks (treasury, name, symbol, NFT supply rules, finite supply), then the token. */
  create(spec: TokenSpec, id: () => string, timestamp: string, accountExists: (id: string) => boolean): TokenOutcome {
    const invalid =
      !accountExists(spec.treasury) ? 'INVALID_TREASURY_ACCOUNT_FOR_TOKEN'
      : !spec.name ? 'MISSING_TOKEN_NAME'
      : !spec.symbol ? 'MISSING_TOKEN_SYMBOL'
      : spec.autoRenewAccount && !accountExists(spec.autoRenewAccount) ? 'INVALID_AUTORENEW_ACCOUNT'
      : spec.type === 'NON_FUNGIBLE_UNIQUE' && spec.decimals !== 0 ? 'INVALID_TOKEN_DECIMALS'
      : spec.type === 'NON_FUNGIBLE_UNIQUE' && spec.initialSupply !== 0n ? 'INVALID_TOKEN_INITIAL_SUPPLY'
      : spec.type === 'NON_FUNGIBLE_UNIQUE' && !spec.keys.supply ? 'TOKEN_HAS_NO_SUPPLY_KEY'
      : spec.supplyType === 'FINITE' && spec.maxSupply <= 0n ? 'INVALID_TOKEN_MAX_SUPPLY'
      : spec.supplyType === 'FINITE' && spec.initialSupply > spec.maxSupply ? 'INVALID_TOKEN_INITIAL_SUPPLY'
      : spec.freezeDefault && !spec.keys.freeze ? 'TOKEN_HAS_NO_FREEZE_KEY'
      : undefined;
    if (invalid) return { result: invalid };
    const tokenId = id();
    this.ledger.create({ ...spec, id: tokenId, totalSupply: spec.initialSupply, createdTimestamp: timestamp, modifiedTimestamp: timestamp });
    const minted = spec.initialSupply > 0n ? [{ token: tokenId, account: spec.treasury, amount: spec.initialSupply }] : [];
    return { result: 'SUCCESS', entityId: tokenId, tokenTransfers: minted };
  }

  associate(account: string, tokens: string[], timestamp: string): string {
    return this.ledger.associate(account, tokens, timestamp);
  }

  handle(work: TokenWork, payer: string, timestamp: string, accountExists: (id: string) => boolean): TokenOutcome {
    if (work.name === 'CRYPTOAPPROVEALLOWANCE') return { result: this.#approve(work, payer, timestamp, accountExists) };
    const token = this.ledger.token(work.token);
    if (!token) return { result: 'INVALID_TOKEN_ID' };
    if (work.name === 'TOKENMINT') return this.#mint(token, work, timestamp);
    const rule = KYC_FREEZE[work.name];
    if (!token.keys[rule.role]) return { result: rule.missing };
    if (!accountExists(work.account)) return { result: 'INVALID_ACCOUNT_ID' };
    const relation = this.ledger.relation(work.token, work.account);
    if (!relation) return { result: 'TOKEN_NOT_ASSOCIATED_TO_ACCOUNT' };
    rule.apply(relation);
    return { result: 'SUCCESS', entityId: work.account };
  }

  /** TokenMint: fungible amount or NFT metadata, never both; the new supply goes to the treasury. */
  #mint(token: LedgerToken, work: TokenWork & { name: 'TOKENMINT' }, timestamp: string): TokenOutcome {
    if (!token.keys.supply) return { result: 'TOKEN_HAS_NO_SUPPLY_KEY' };
    const nft = token.type === 'NON_FUNGIBLE_UNIQUE';
    if (work.amount > 0n && work.metadata.length > 0) return { result: 'INVALID_TRANSACTION_BODY' };
    if (nft && work.amount > 0n) return { result: 'INVALID_TOKEN_MINT_AMOUNT' };
    if (!nft && work.metadata.length > 0) return { result: 'INVALID_TOKEN_MINT_METADATA' };
    if (nft && work.metadata.length > MAX_MINT_BATCH) return { result: 'BATCH_SIZE_LIMIT_EXCEEDED' };
    if (nft && work.metadata.some((m) => m.length > MAX_NFT_METADATA_BYTES)) return { result: 'METADATA_TOO_LONG' };
    const amount = nft ? BigInt(work.metadata.length) : work.amount;
    if (amount <= 0n) return { result: nft ? 'INVALID_TOKEN_MINT_METADATA' : 'INVALID_TOKEN_MINT_AMOUNT' };
    if (token.totalSupply + amount > token.maxSupply) return { result: 'TOKEN_MAX_SUPPLY_REACHED' };
    this.ledger.mint(token, amount, timestamp);
    const newTotalSupply = Number(token.totalSupply);
    if (!nft) return { result: 'SUCCESS', entityId: token.id, tokenTransfers: [{ token: token.id, account: token.treasury, amount }], record: { newTotalSupply } };
    const serials = this.nfts.mint(token.id, token.treasury, work.metadata, timestamp);
    const nftTransfers = serials.map((serial) => ({ token: token.id, serial, sender: null, receiver: token.treasury, isApproval: false }));
    return { result: 'SUCCESS', entityId: token.id, record: { newTotalSupply, serialNumbers: serials, nftTransfers } };
  }

  #approve(work: TokenWork & { name: 'CRYPTOAPPROVEALLOWANCE' }, payer: string, timestamp: string, accountExists: (id: string) => boolean): string {
    const party = (owner: string, spender: string, amount = 0n) =>
      !accountExists(owner) ? 'INVALID_ALLOWANCE_OWNER_ID'
      : !accountExists(spender) ? 'INVALID_ALLOWANCE_SPENDER_ID'
      : amount < 0n ? 'NEGATIVE_ALLOWANCE_AMOUNT'
      : owner === spender ? 'SPENDER_ACCOUNT_SAME_AS_OWNER'
      : 'SUCCESS';
    const tokenFor = (id: string, owner: string, type: LedgerToken['type']) => {
      const token = this.ledger.token(id);
      if (!token) return 'INVALID_TOKEN_ID';
      if (token.type !== type) return type === 'FUNGIBLE_COMMON' ? 'NFT_IN_FUNGIBLE_TOKEN_ALLOWANCES' : 'FUNGIBLE_TOKEN_IN_NFT_ALLOWANCES';
      return this.ledger.relation(id, owner) ? 'SUCCESS' : 'TOKEN_NOT_ASSOCIATED_TO_ACCOUNT';
    };
    for (const a of work.hbar) {
      const status = party(a.owner ?? payer, a.spender, a.amount);
      if (status !== 'SUCCESS') return status;
    }
    for (const a of work.tokens) {
      const owner = a.owner ?? payer;
      const status = party(owner, a.spender, a.amount);
      if (status !== 'SUCCESS') return status;
      const tokenStatus = tokenFor(a.token, owner, 'FUNGIBLE_COMMON');
      if (tokenStatus !== 'SUCCESS') return tokenStatus;
      const token = this.ledger.token(a.token)!;
      if (token.supplyType === 'FINITE' && a.amount > token.maxSupply) return 'AMOUNT_EXCEEDS_TOKEN_MAX_SUPPLY';
    }
    for (const a of work.nfts) {
      const owner = a.owner ?? payer;
      const status = party(owner, a.spender);
      if (status !== 'SUCCESS') return status;
      const tokenStatus = tokenFor(a.token, owner, 'NON_FUNGIBLE_UNIQUE');
      if (tokenStatus !== 'SUCCESS') return tokenStatus;
      if (a.delegatingSpender) {
        if (a.approvedForAll) return 'DELEGATING_SPENDER_CANNOT_GRANT_APPROVE_FOR_ALL';
        if (!this.allowances.approvedForAll(owner, a.delegatingSpender, a.token)) return 'DELEGATING_SPENDER_DOES_NOT_HAVE_APPROVE_FOR_ALL';
      }
      for (const serial of a.serials) {
        const nft = this.nfts.nft(a.token, serial);
        if (!nft) return 'INVALID_TOKEN_NFT_SERIAL_NUMBER';
        if (nft.owner !== owner) return 'SENDER_DOES_NOT_OWN_NFT_SERIAL_NO';
      }
    }
    for (const a of work.hbar) this.allowances.setAmount(a.owner ?? payer, a.spender, undefined, a.amount, timestamp);
    for (const a of work.tokens) this.allowances.setAmount(a.owner ?? payer, a.spender, a.token, a.amount, timestamp);
    for (const a of work.nfts) {
      const owner = a.owner ?? payer;
      if (a.approvedForAll !== undefined) this.allowances.setApprovedForAll(owner, a.spender, a.token, a.approvedForAll, timestamp);
      for (const serial of a.serials) {
        const nft = this.nfts.nft(a.token, serial)!;
        nft.spender = a.spender;
        if (a.delegatingSpender) nft.delegatingSpender = a.delegatingSpender;
        else delete nft.delegatingSpender;
        nft.modifiedTimestamp = timestamp;
      }
    }
    return 'SUCCESS';
  }

  /**
   * The token side of a CryptoTransfer, and the allowances its approved moves (hbar included) spend: every check
   * first, then all of it. The payer is the spender of every move marked `is_approval`.
   */
  transfer(t: { hbar: HbarMove[]; tokens: TokenMove[]; nfts: NftMove[] }, payer: string, timestamp: string): TokenOutcome {
    const status = this.#checkTransfer(t, payer);
    if (status !== 'SUCCESS') return { result: status };
    for (const m of [...t.hbar, ...t.tokens]) {
      if (m.isApproval && m.amount < 0n) this.allowances.spend(m.account, payer, spentToken(m), -m.amount);
    }
    this.ledger.apply(t.tokens);
    this.ledger.apply(t.nfts.flatMap((m) => [{ token: m.token, account: m.sender, amount: -1n }, { token: m.token, account: m.receiver, amount: 1n }]));
    this.nfts.apply(t.nfts, timestamp);
    const nftTransfers = t.nfts.map((m) => ({ token: m.token, serial: m.serial, sender: m.sender, receiver: m.receiver, isApproval: m.isApproval === true }));
    return { result: 'SUCCESS', tokenTransfers: t.tokens, ...(nftTransfers.length ? { record: { nftTransfers } } : {}) };
  }

  #checkTransfer(t: { hbar: HbarMove[]; tokens: TokenMove[]; nfts: NftMove[] }, payer: string): string {
    const fungible = this.ledger.checkFungible(t.tokens);
    if (fungible !== 'SUCCESS') return fungible;
    // Approved debits of one owner add up against one allowance.
    const spends = new Map<string, { owner: string; token?: string; amount: bigint }>();
    for (const m of [...t.hbar, ...t.tokens]) {
      if (!m.isApproval || m.amount >= 0n) continue;
      const token = spentToken(m);
      const k = `${m.account}|${token ?? ''}`;
      const s = spends.get(k) ?? { owner: m.account, token, amount: 0n };
      s.amount -= m.amount;
      spends.set(k, s);
    }
    for (const s of spends.values()) {
      const status = this.allowances.checkSpend(s.owner, payer, s.token, s.amount);
      if (status !== 'SUCCESS') return status;
    }
    for (const m of t.nfts) {
      const token = this.ledger.token(m.token);
      if (!token) return 'INVALID_TOKEN_ID';
      if (token.type !== 'NON_FUNGIBLE_UNIQUE') return 'INVALID_NFT_ID';
      const nft = this.nfts.nft(m.token, m.serial);
      if (!nft) return 'INVALID_NFT_ID';
      for (const account of [m.sender, m.receiver]) {
        const usable = this.ledger.usable(m.token, account);
        if (usable !== 'SUCCESS') return usable;
      }
      if (nft.owner !== m.sender) return 'SENDER_DOES_NOT_OWN_NFT_SERIAL_NO';
      if (m.isApproval && nft.spender !== payer && !this.allowances.approvedForAll(m.sender, payer, m.token)) return 'SPENDER_DOES_NOT_HAVE_ALLOWANCE';
    }
    return 'SUCCESS';
  }
}
