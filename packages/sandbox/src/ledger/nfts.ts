/**
 * Non-fungible token serials (HIP-17 unique tokens): minted to the treasury with their metadata, owned by one
 * account, optionally approved to one spender (HIP-336's per-serial allowance, cleared when the serial moves).
 */

export interface LedgerNft {
  token: string;
  serial: number;
  owner: string;
  metadata: Uint8Array;
  /** The spender approved for this serial alone, if any. */
  spender?: string;
  /** The approved-for-all spender who granted `spender` (NftAllowance.delegating_spender), if any. */
  delegatingSpender?: string;
  createdTimestamp: string;
  modifiedTimestamp: string;
}

export interface NftMove {
  token: string;
  serial: number;
  sender: string;
  receiver: string;
  /** Sent under an allowance the payer holds (NftTransfer.is_approval). */
  isApproval?: boolean;
}

export class NftStore {
  /** token id -> serials in mint order (serial n at index n - 1). */
  readonly #byToken = new Map<string, LedgerNft[]>();

  nft(token: string, serial: number): LedgerNft | undefined {
    return this.#byToken.get(token)?.[serial - 1];
  }

  /** A token's serials in ascending order. */
  ofToken(token: string): readonly LedgerNft[] {
    return this.#byToken.get(token) ?? [];
  }

  /** Every serial an account owns, ordered by token then serial (as /accounts/{id}/nfts orders them). */
  ofOwner(account: string, tokenOrder: readonly string[]): LedgerNft[] {
    return tokenOrder.flatMap((token) => this.ofToken(token).filter((n) => n.owner === account));
  }

  /** Mints the next serials to the treasury; returns their serial numbers. */
  mint(token: string, treasury: string, metadata: Uint8Array[], timestamp: string): number[] {
    const serials = this.#byToken.get(token) ?? [];
    this.#byToken.set(token, serials);
    return metadata.map((m) => {
      const nft: LedgerNft = { token, serial: serials.length + 1, owner: treasury, metadata: m, createdTimestamp: timestamp, modifiedTimestamp: timestamp };
      serials.push(nft);
      return nft.serial;
    });
  }

  /** Moves checked serials; a moved serial loses its spender approval (CryptoTransferHandler clears it). */
  apply(moves: NftMove[], timestamp: string): void {
    for (const m of moves) {
      const nft = this.nft(m.token, m.serial)!;
      nft.owner = m.receiver;
      delete nft.spender;
      delete nft.delegatingSpender;
      nft.modifiedTimestamp = timestamp;
    }
  }
}
