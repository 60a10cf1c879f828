// In a module of its own so that the ledger's views and the token service need not import each other.
import type { AllowanceBook } from './allowances.js';
import type { NftStore } from './nfts.js';
import type { LedgerToken, TokenLedger } from './tokens.js';

/** The token service's state as the mirror node stand-in reads it. */
export interface TokenState {
  tokens(): readonly LedgerToken[];
  token(id: string): LedgerToken | undefined;
  readonly ledger: TokenLedger;
  readonly nfts: NftStore;
  readonly allowances: AllowanceBook;
}
