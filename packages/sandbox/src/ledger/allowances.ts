/**
 * Allowances (HIP-336, CryptoApproveAllowance): an owner lets a spender move its hbar or fungible tokens up to an
 * amount, or all its serials of an NFT token. A transfer marked `is_approval` spends them; the payer is the spender.
 * Amounts granted and remaining are both kept because the mirror node shows both (`amount_granted`, `amount`).
 */

export interface AmountAllowance {
  owner: string;
  spender: string;
  /** For token allowances; undefined for hbar. */
  token?: string;
  amountGranted: bigint;
  /** What remains after approved transfers. */
  amount: bigint;
  /** Consensus timestamp of the last change (the mirror node's `timestamp.from`). */
  timestamp: string;
}

export interface NftAllAllowance {
  owner: string;
  spender: string;
  token: string;
  approvedForAll: boolean;
  timestamp: string;
}

const key = (owner: string, spender: string, token = 'hbar') => `${owner}|${spender}|${token}`;

export class AllowanceBook {
  readonly #amounts = new Map<string, AmountAllowance>();
  readonly #nfts = new Map<string, NftAllAllowance>();

  /** Hbar allowances of an owner (token undefined) or fungible token allowances (token set). */
  amounts(owner: string, kind: 'hbar' | 'token'): AmountAllowance[] {
    return [...this.#amounts.values()].filter((a) => a.owner === owner && (kind === 'hbar') === (a.token === undefined));
  }

  /** Every fungible allowance on one token. */
  ofToken(token: string): AmountAllowance[] {
    return [...this.#amounts.values()].filter((a) => a.token === token);
  }

  amount(owner: string, spender: string, token?: string): AmountAllowance | undefined {
    return this.#amounts.get(key(owner, spender, token));
  }

  /** Every approve-for-all decision (granted or revoked), as the mirror node keeps them. */
  nftAllowances(): NftAllAllowance[] {
    return [...this.#nfts.values()];
  }

  approvedForAll(owner: string, spender: string, token: string): boolean {
    return this.#nfts.get(key(owner, spender, token))?.approvedForAll === true;
  }

  /** Sets an allowance; an amount of 0 removes it (CryptoApproveAllowanceHandler). */
  setAmount(owner: string, spender: string, token: string | undefined, amount: bigint, timestamp: string): void {
    const k = key(owner, spender, token);
    if (amount === 0n) this.#amounts.delete(k);
    else this.#amounts.set(k, { owner, spender, ...(token ? { token } : {}), amountGranted: amount, amount, timestamp });
  }

  setApprovedForAll(owner: string, spender: string, token: string, approvedForAll: boolean, timestamp: string): void {
    this.#nfts.set(key(owner, spender, token), { owner, spender, token, approvedForAll, timestamp });
  }

  /**
   * The status of spending `amount` of the owner's hbar (token undefined) or token under the spender's allowance:
   * SPENDER_DOES_NOT_HAVE_ALLOWANCE without one, AMOUNT_EXCEEDS_ALLOWANCE when it is too small.
   */
  checkSpend(owner: string, spender: string, token: string | undefined, amount: bigint): string {
    const a = this.#amounts.get(key(owner, spender, token));
    if (!a) return 'SPENDER_DOES_NOT_HAVE_ALLOWANCE';
    return a.amount < amount ? 'AMOUNT_EXCEEDS_ALLOWANCE' : 'SUCCESS';
  }

  /** Spends a checked amount; an allowance spent to zero is removed, as the ledger removes it. */
  spend(owner: string, spender: string, token: string | undefined, amount: bigint): void {
    const k = key(owner, spender, token);
    const a = this.#amounts.get(k)!;
    a.amount -= amount;
    if (a.amount === 0n) this.#amounts.delete(k);
  }
}
