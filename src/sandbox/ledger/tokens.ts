/**
 * The ledger's token service (HTS) as the sandbox models it: fungible tokens with a treasury that receives the initial
 * supply, associations (an account holds a token only once associated), and transfers checked the way the ledger
 * checks them. Every change is all or nothing: a transfer that fails any check moves nothing.
 */

export interface LedgerToken {
  /** `0.0.<num>` */
  id: string;
  name: string;
  symbol: string;
  decimals: number;
  memo: string;
  initialSupply: bigint;
  totalSupply: bigint;
  treasury: string;
  /** The admin key as `{type, hex}` of its raw public key, if the token has one. */
  adminKey?: { type: 'ED25519' | 'ECDSA_SECP256K1'; key: string };
  autoRenewAccount?: string;
  autoRenewPeriodSeconds?: number;
  createdTimestamp: string;
}

export interface TokenMove {
  token: string;
  account: string;
  amount: bigint;
}

export class TokenLedger {
  readonly #tokens: LedgerToken[] = [];
  readonly #byId = new Map<string, LedgerToken>();
  /** token id -> account id -> balance; an entry (even 0) is an association. */
  readonly #balances = new Map<string, Map<string, bigint>>();

  tokens(): readonly LedgerToken[] {
    return this.#tokens;
  }

  token(id: string): LedgerToken | undefined {
    return this.#byId.get(id);
  }

  /** Holders of a token (associated accounts) and their balances. */
  balances(id: string): ReadonlyMap<string, bigint> {
    return this.#balances.get(id) ?? new Map();
  }

  /** Creates the token, associates its treasury and credits it the initial supply. */
  create(token: LedgerToken): void {
    this.#tokens.push(token);
    this.#byId.set(token.id, token);
    this.#balances.set(token.id, new Map([[token.treasury, token.initialSupply]]));
  }

  /** The ledger's status for associating `account` with `tokens`. */
  associate(account: string, tokens: string[]): string {
    if (tokens.length === 0) return 'EMPTY_TOKEN_LIST';
    if (new Set(tokens).size !== tokens.length) return 'TOKEN_ID_REPEATED_IN_TOKEN_LIST';
    for (const id of tokens) {
      const holders = this.#balances.get(id);
      if (!holders) return 'INVALID_TOKEN_ID';
      if (holders.has(account)) return 'TOKEN_ALREADY_ASSOCIATED_TO_ACCOUNT';
    }
    for (const id of tokens) this.#balances.get(id)!.set(account, 0n);
    return 'SUCCESS';
  }

  /** Checks every move (known token, associated account, sum zero per token, enough balance), then applies them. */
  transfer(moves: TokenMove[]): string {
    const sums = new Map<string, bigint>();
    for (const m of moves) {
      const holders = this.#balances.get(m.token);
      if (!holders) return 'INVALID_TOKEN_ID';
      if (!holders.has(m.account)) return 'TOKEN_NOT_ASSOCIATED_TO_ACCOUNT';
      if (m.amount < 0n && holders.get(m.account)! + m.amount < 0n) return 'INSUFFICIENT_TOKEN_BALANCE';
      sums.set(m.token, (sums.get(m.token) ?? 0n) + m.amount);
    }
    if ([...sums.values()].some((s) => s !== 0n)) return 'TRANSFERS_NOT_ZERO_SUM_FOR_TOKEN';
    for (const m of moves) {
      const holders = this.#balances.get(m.token)!;
      holders.set(m.account, holders.get(m.account)! + m.amount);
    }
    return 'SUCCESS';
  }
}
