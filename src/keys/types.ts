import type { PlanConfig } from '../config/schema.js';

/** What the edge knows about a caller once its key is verified. Never holds the key itself. */
export interface VerifiedKey {
  /** Short non-secret id, safe for logs. */
  id: string;
  accountId: string;
  name: string;
  planName: string;
  plan: PlanConfig;
  network: 'mainnet' | 'testnet';
  /** May use the ledger relay while it is in beta. */
  relayBeta: boolean;
  /** Exempt from the per-key transaction submission budget. */
  heavyWrites: boolean;
  /** The key's own hbar budget per window (tinybar), when the operator set one; else its plan's hbarPerKeyTinybar. */
  hbarLimitTinybar?: number;
}

/** Verifies a raw key; null when unknown or revoked. Implementations cache and coalesce. */
export interface KeyVerifier {
  /** The answer itself when it is known at once (a cached key, a malformed one), a promise when the store is read. */
  verify(rawKey: string): VerifiedKey | null | Promise<VerifiedKey | null>;
  /** Drops what this instance remembers of these keys (revoked or re-planned here), so it reads them afresh. */
  forget?(keyIds: string[]): void;
}
