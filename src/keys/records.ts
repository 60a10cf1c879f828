/**
 * What every key store keeps and answers: the contract the embedded store (embedded.ts) and the Postgres store
 * (store.ts) both implement, apart from how one is opened, so the stores share it without importing each other.
 */
import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import type { HbarSpendStore } from '../limits/hbarSpend.js';
import type { UsageHistory, UsageStore } from '../limits/types.js';

export const KEY_FLAGS = ['relay_beta', 'heavy_writes'] as const;
export type KeyFlag = (typeof KEY_FLAGS)[number];
export const KEY_NETWORKS = ['mainnet', 'testnet'] as const;
export type KeyNetwork = (typeof KEY_NETWORKS)[number];

export interface AccountRecord {
  id: string;
  name: string;
  email: string | null;
  createdAt: Date;
}

export interface AccountSummary extends AccountRecord {
  /** Keys of the account, and how many of them are not revoked. */
  keys: number;
  activeKeys: number;
}

/** A key as the store describes it: never the key itself. */
export interface KeyRecord {
  id: string;
  accountId: string;
  accountName: string;
  accountEmail: string | null;
  name: string;
  network: KeyNetwork;
  plan: string;
  flags: KeyFlag[];
  /** The key's own hbar budget per window (tinybar), set by the operator; null means its plan's. */
  hbarLimitTinybar: number | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface StoredKey extends KeyRecord {
  /** SHA-256 of the key, hex. */
  hash: string;
}

/** A key for an existing account, or for a new account created with it (atomically: no account without its key). */
export type NewKey = {
  name: string;
  plan?: string;
  network?: KeyNetwork;
  flags?: KeyFlag[];
} & ({ accountId: string } | { account: { name: string; email?: string } });

/** Where the store lives: a journal file in a directory, memory only, or a Postgres server. */
export type StoreKind = 'embedded' | 'memory' | 'postgres';

export interface KeyStore extends UsageStore, UsageHistory, HbarSpendStore {
  readonly kind: StoreKind;
  createAccount(account: { name: string; email?: string }): Promise<AccountRecord>;
  listAccounts(): Promise<AccountSummary[]>;
  showAccount(id: string): Promise<AccountRecord>;
  /** The account's keys, oldest first. */
  accountKeys(id: string): Promise<KeyRecord[]>;
  /** Revokes every key of the account. */
  revokeAccount(id: string): Promise<KeyRecord[]>;
  /** Moves every key of the account to the plan. */
  setAccountPlan(id: string, plan: string): Promise<KeyRecord[]>;
  /** The only time the full key exists outside its owner's hands. */
  createKey(key: NewKey): Promise<{ key: string; record: KeyRecord }>;
  /** The key with this hash, revoked or not; undefined when none. */
  findByHash(hash: string): Promise<StoredKey | undefined>;
  list(): Promise<KeyRecord[]>;
  show(id: string): Promise<KeyRecord>;
  revoke(id: string): Promise<KeyRecord>;
  setPlan(id: string, plan: string): Promise<KeyRecord>;
  /** Sets the key's own hbar budget per window, or with null returns it to its plan's. */
  setHbarLimit(id: string, tinybar: number | null): Promise<KeyRecord>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A row of the keys table, as both the Postgres store and the import of an earlier embedded store read it. */
export interface KeyTableRow {
  id: string;
  hash: string;
  account_id: string;
  name: string;
  network: KeyNetwork;
  plan: string;
  flags: KeyFlag[];
  /** Absent in an earlier version's PGlite store. */
  hbar_limit_tinybar?: string | number | null;
  created_at: Date;
  revoked_at: Date | null;
}

/** Keys can only name a configured plan. */
export function requirePlan(plans: Config['plans'], plan: string): void {
  if (!Object.prototype.hasOwnProperty.call(plans, plan)) {
    throw new GatewayError('PLAN_UNKNOWN', `"${plan}"; plans are ${Object.keys(plans).join(', ')}`);
  }
}
