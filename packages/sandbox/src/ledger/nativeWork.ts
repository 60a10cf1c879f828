// The shapes decoding hands the chain, in a module of their own so that the decoders and the chain need not import each other.
import type { PublicKey } from '@hashgraph/sdk';
import type { NftMove } from './nfts.js';
import type { HbarMove, TokenWork } from './tokenService.js';
import type { TokenKeyRole, TokenMove, TokenSpec } from './tokens.js';

/** The ledger's own services (accounts, hbar and token transfers, tokens), as opposed to files and the EVM. */
export type NativeWork =
  | { name: 'CRYPTOCREATEACCOUNT'; key: PublicKey; initialBalanceTinybar: bigint; /** An EVM-address alias, 0x hex. */ alias?: string }
  | { name: 'CRYPTOTRANSFER'; hbar: HbarMove[]; tokens: TokenMove[]; nfts: NftMove[] }
  | { name: 'TOKENCREATION'; token: TokenSpec }
  | { name: 'TOKENASSOCIATE'; account: string; tokens: string[] }
  | TokenWork;

export interface NativeDecoded {
  work: NativeWork;
  /** Accounts whose keys must have signed. */
  signers: string[];
  /** Keys that must have signed that belong to no account (a new token's admin key). */
  keys: PublicKey[];
  /** A token's keys that must have signed (a mint's supply key); a token without that key fails at consensus. */
  tokenKeys?: Array<{ token: string; role: TokenKeyRole }>;
}
