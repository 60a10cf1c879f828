/**
 * The lines of the embedded store's journal (embedded.ts), which the import of an earlier version's PGlite data
 * directory (legacy.ts) also produces.
 */
import type { UsageOutcome } from '../limits/types.js';
import type { KeyFlag, KeyNetwork } from './records.js';

export interface AccountRow {
  id: string;
  name: string;
  email: string | null;
  createdAt: string;
}

export interface KeyRow {
  id: string;
  hash: string;
  accountId: string;
  name: string;
  network: KeyNetwork;
  plan: string;
  flags: KeyFlag[];
  /** Absent in journals written before per-key hbar budgets. */
  hbarLimitTinybar?: number | null;
  createdAt: string;
  revokedAt: string | null;
}

export type HourRow = [keyId: string, hour: number, api: string, network: string, outcome: UsageOutcome, count: number];

/**
 * One change, as the journal holds it. `key` carries the whole key, so a snapshot is a list of the same records.
 * `usage` is what the limiter flushes: hourly rows, whose admitted requests also count toward the month. A snapshot
 * keeps the two apart (`hours`, `months`), as do stores taken over from PGlite, whose months have no hours.
 */
export type StoreRecord =
  | ({ t: 'account' } & AccountRow)
  | ({ t: 'key' } & KeyRow)
  | { t: 'revoke'; ids: string[]; at: string }
  | { t: 'plan'; ids: string[]; plan: string }
  | { t: 'usage'; rows: HourRow[] }
  | { t: 'hours'; rows: HourRow[] }
  | { t: 'months'; rows: Array<[keyId: string, month: string, count: number]> }
  | { t: 'prune'; before: number }
  | { t: 'hbarLimit'; ids: string[]; tinybar: number | null }
  /** Settled hbar spend, added to what the scope already spent in that window. */
  | { t: 'hbar'; rows: Array<[scope: string, window: number, tinybar: number]> };
