/**
 * The embedded key store: accounts, keys and usage counts in memory, every change first made durable in a journal file
 * in the data directory (`keys.journal`). The whole store of even a large deployment is a few megabytes, so there is
 * nothing to page in: answers come from memory, and the journal is read once at start-up. `memory://` keeps no file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import { monthOf } from '../limits/calendar.js';
import type { HbarSpendRow } from '../limits/hbarSpend.js';
import type { UsageDelta } from '../limits/types.js';
import { generateKey, hashKey, newAccountId, newKeyId } from './format.js';
import { Journal } from './journal.js';
import { readLegacyStore } from './legacy.js';
import type { AccountRow, HourRow, KeyRow, StoreRecord } from './journalRecords.js';
import { KEY_NETWORKS, type AccountRecord, type AccountSummary, type KeyRecord, type KeyStore, type NewKey, requirePlan, type StoreKind, type StoredKey } from './records.js';

export const JOURNAL_FILE = 'keys.journal';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
// Ties within a millisecond keep insertion order (the journal's order): sort is stable, and ids are random.
const byCreation = (a: { createdAt: string }, b: { createdAt: string }) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);

export async function openEmbeddedStore(
  kind: Extract<StoreKind, 'embedded' | 'memory'>,
  opts: { keys: Config['keys']; plans: Config['plans'] },
  unlock: () => void,
): Promise<KeyStore> {
  const store = new EmbeddedKeyStore(kind, opts.plans, opts.keys.maxPerAccount, unlock);
  if (kind === 'memory') return store;
  const path = join(opts.keys.dataDir, JOURNAL_FILE);
  // A data directory written by an earlier version (PGlite) is read once into the journal; its files stay as they were.
  const legacy = !existsSync(path) ? await readLegacyStore(opts.keys.dataDir) : undefined;
  store.journal = await Journal.open<StoreRecord>(path, (r) => store.apply(r), store);
  if (legacy) {
    for (const r of legacy) store.apply(r);
    await store.journal.compact();
  }
  return store;
}

class EmbeddedKeyStore implements KeyStore {
  journal?: Journal<StoreRecord>;
  private readonly accounts = new Map<string, AccountRow>();
  private readonly keys = new Map<string, KeyRow>();
  private readonly byHash = new Map<string, KeyRow>();
  /** `keyId \0 month` to admitted requests, which the quota reads. */
  private readonly months = new Map<string, number>();
  /** Settled hbar spend by `scope \0 window`. */
  private readonly hbar = new Map<string, number>();
  /** Hourly rows by `keyId \0 hour \0 api \0 network \0 outcome`. */
  private readonly hours = new Map<string, HourRow>();
  private closed = false;

  constructor(
    readonly kind: StoreKind,
    private readonly plans: Config['plans'],
    private readonly maxPerAccount: number,
    private readonly unlock: () => void,
  ) {}

  apply(r: StoreRecord): void {
    switch (r.t) {
      case 'account': {
        const { t: _t, ...row } = r;
        this.accounts.set(row.id, row);
        break;
      }
      case 'key': {
        const { t: _t, ...row } = r;
        this.keys.set(row.id, row);
        this.byHash.set(row.hash, row);
        break;
      }
      case 'revoke':
        // A second revoke keeps the first revocation time.
        for (const id of r.ids) {
          const key = this.keys.get(id);
          if (key) key.revokedAt ??= r.at;
        }
        break;
      case 'plan':
        for (const id of r.ids) {
          const key = this.keys.get(id);
          if (key) key.plan = r.plan;
        }
        break;
      case 'usage':
      case 'hours':
        for (const row of r.rows) {
          const [keyId, hour, api, network, outcome, count] = row;
          const at = [keyId, hour, api, network, outcome].join('\u0000');
          const prior = this.hours.get(at);
          if (prior) prior[5] += count;
          else this.hours.set(at, [...row]);
          if (r.t === 'usage' && outcome === 'ok') this.addMonth(keyId, monthOf(hour), count);
        }
        break;
      case 'months':
        for (const [keyId, month, count] of r.rows) this.addMonth(keyId, month, count);
        break;
      case 'prune':
        for (const [at, row] of this.hours) if (row[1] < r.before) this.hours.delete(at);
        break;
      case 'hbarLimit':
        for (const id of r.ids) {
          const key = this.keys.get(id);
          if (key) key.hbarLimitTinybar = r.tinybar;
        }
        break;
      case 'hbar':
        for (const [scope, window, tinybar] of r.rows) {
          const at = `${scope}\u0000${window}`;
          this.hbar.set(at, (this.hbar.get(at) ?? 0) + tinybar);
        }
        break;
    }
  }

  snapshot(): StoreRecord[] {
    return [
      ...[...this.accounts.values()].map((a): StoreRecord => ({ t: 'account', ...a })),
      ...[...this.keys.values()].map((k): StoreRecord => ({ t: 'key', ...k, flags: [...k.flags] })),
      { t: 'hours', rows: [...this.hours.values()] },
      {
        t: 'months',
        rows: [...this.months].map(([at, count]): [string, string, number] => {
          const [keyId, month] = at.split('\u0000');
          return [keyId, month, count];
        }),
      },
      {
        t: 'hbar',
        rows: [...this.hbar].map(([at, tinybar]): [string, number, number] => {
          const [scope, window] = at.split('\u0000');
          return [scope, Number(window), tinybar];
        }),
      },
    ];
  }

  size(): number {
    return this.accounts.size + this.keys.size + 3;
  }

  async createAccount(account: { name: string; email?: string }): Promise<AccountRecord> {
    const row = newAccount(account);
    await this.commit([{ t: 'account', ...row }]);
    return this.accountRecord(row);
  }

  async listAccounts(): Promise<AccountSummary[]> {
    const summaries = new Map([...this.accounts.values()].map((a) => [a.id, { ...this.accountRecord(a), keys: 0, activeKeys: 0 }]));
    for (const k of this.keys.values()) {
      const summary = summaries.get(k.accountId)!;
      summary.keys++;
      if (k.revokedAt === null) summary.activeKeys++;
    }
    return [...this.accounts.values()].sort(byCreation).map((a) => summaries.get(a.id)!);
  }

  async showAccount(id: string): Promise<AccountRecord> {
    return this.accountRecord(this.account(id));
  }

  async accountKeys(id: string): Promise<KeyRecord[]> {
    this.account(id);
    return this.keysWhere((k) => k.accountId === id);
  }

  async revokeAccount(id: string): Promise<KeyRecord[]> {
    this.account(id);
    await this.commit([{ t: 'revoke', ids: this.idsOf(id), at: new Date().toISOString() }]);
    return this.accountKeys(id);
  }

  async setAccountPlan(id: string, plan: string): Promise<KeyRecord[]> {
    this.requirePlan(plan);
    this.account(id);
    await this.commit([{ t: 'plan', ids: this.idsOf(id), plan }]);
    return this.accountKeys(id);
  }

  async createKey(spec: NewKey): Promise<{ key: string; record: KeyRecord }> {
    const plan = spec.plan ?? 'free';
    this.requirePlan(plan);
    const network = spec.network ?? 'mainnet';
    if (!KEY_NETWORKS.includes(network)) throw new Error(`network must be one of ${KEY_NETWORKS.join(', ')}, got "${network}"`);
    const records: StoreRecord[] = [];
    let accountId: string;
    if ('account' in spec) {
      // A new account per key would make the cap meaningless; accounts sharing an email address share it.
      const email = spec.account.email?.toLowerCase();
      if (email) this.checkCap((k) => this.accounts.get(k.accountId)!.email?.toLowerCase() === email);
      const account = newAccount(spec.account);
      records.push({ t: 'account', ...account });
      accountId = account.id;
    } else {
      accountId = this.account(spec.accountId).id;
      this.checkCap((k) => k.accountId === accountId);
    }
    const key = generateKey();
    const row: KeyRow = {
      id: newKeyId(),
      hash: hashKey(key),
      accountId,
      name: spec.name,
      network,
      plan,
      flags: [...new Set(spec.flags ?? [])],
      createdAt: new Date().toISOString(),
      revokedAt: null,
    };
    records.push({ t: 'key', ...row });
    await this.commit(records);
    return { key, record: await this.show(row.id) };
  }

  async findByHash(hash: string): Promise<StoredKey | undefined> {
    const row = this.byHash.get(hash);
    return row && { ...this.keyRecord(row), hash: row.hash };
  }

  async list(): Promise<KeyRecord[]> {
    return this.keysWhere(() => true);
  }

  async show(id: string): Promise<KeyRecord> {
    return this.keyRecord(this.key(id));
  }

  async revoke(id: string): Promise<KeyRecord> {
    this.key(id);
    await this.commit([{ t: 'revoke', ids: [id], at: new Date().toISOString() }]);
    return this.show(id);
  }

  async setPlan(id: string, plan: string): Promise<KeyRecord> {
    this.requirePlan(plan);
    this.key(id);
    await this.commit([{ t: 'plan', ids: [id], plan }]);
    return this.show(id);
  }

  async setHbarLimit(id: string, tinybar: number | null): Promise<KeyRecord> {
    this.key(id);
    await this.commit([{ t: 'hbarLimit', ids: [id], tinybar }]);
    return this.show(id);
  }

  async addHbarSpend(rows: HbarSpendRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.commit([{ t: 'hbar', rows: rows.map((r) => [r.scope, r.window, r.tinybar]) }]);
  }

  async hbarSpend(scopes: string[], window: number): Promise<number[]> {
    return scopes.map((s) => this.hbar.get(`${s}\u0000${window}`) ?? 0);
  }

  async addUsage(deltas: UsageDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    await this.commit([{ t: 'usage', rows: deltas.map((d) => [d.keyId, d.hour, d.api, d.network, d.outcome, d.count]) }]);
  }

  async hourlyUsage(keyId: string, sinceHour: number): Promise<UsageDelta[]> {
    const rows = [...this.hours.values()].filter(([k, hour]) => k === keyId && hour >= sinceHour);
    const order = (a: HourRow, b: HourRow) => a[1] - b[1] || compare(a[2], b[2]) || compare(a[3], b[3]) || compare(a[4], b[4]);
    return rows.sort(order).map(([, hour, api, network, outcome, count]) => ({ keyId, hour, api, network, outcome, count }));
  }

  async pruneHourly(beforeHour: number): Promise<void> {
    await this.commit([{ t: 'prune', before: beforeHour }]);
  }

  async usage(keyId: string, month: string): Promise<number> {
    return this.months.get(`${keyId}\u0000${month}`) ?? 0;
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('the key store is closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.journal?.close();
    this.unlock();
  }

  /** Durable first, then visible: a change that was answered is on disk. */
  private async commit(records: StoreRecord[]): Promise<void> {
    if (this.closed) throw new Error('the key store is closed');
    await this.journal?.append(records);
    for (const r of records) this.apply(r);
  }

  private addMonth(keyId: string, month: string, count: number): void {
    const at = `${keyId}\u0000${month}`;
    this.months.set(at, (this.months.get(at) ?? 0) + count);
  }

  private checkCap(counts: (k: KeyRow) => boolean): void {
    let active = 0;
    for (const k of this.keys.values()) if (k.revokedAt === null && counts(k)) active++;
    if (active >= this.maxPerAccount) throw new GatewayError('KEYS_PER_ACCOUNT', `at most ${this.maxPerAccount} active keys`);
  }

  private account(id: string): AccountRow {
    const account = this.accounts.get(id);
    if (!account) throw new GatewayError('ACCOUNT_NOT_FOUND', id);
    return account;
  }

  private key(id: string): KeyRow {
    const key = this.keys.get(id);
    if (!key) throw new GatewayError('KEY_NOT_FOUND', id);
    return key;
  }

  private idsOf(accountId: string): string[] {
    return [...this.keys.values()].filter((k) => k.accountId === accountId).map((k) => k.id);
  }

  private keysWhere(pick: (k: KeyRow) => boolean): KeyRecord[] {
    return [...this.keys.values()].filter(pick).sort(byCreation).map((k) => this.keyRecord(k));
  }

  private accountRecord(a: AccountRow): AccountRecord {
    return { id: a.id, name: a.name, email: a.email, createdAt: new Date(a.createdAt) };
  }

  private keyRecord(k: KeyRow): KeyRecord {
    const account = this.accounts.get(k.accountId)!;
    return {
      id: k.id,
      accountId: k.accountId,
      accountName: account.name,
      accountEmail: account.email,
      name: k.name,
      network: k.network,
      plan: k.plan,
      flags: [...k.flags],
      hbarLimitTinybar: k.hbarLimitTinybar ?? null,
      createdAt: new Date(k.createdAt),
      revokedAt: k.revokedAt === null ? null : new Date(k.revokedAt),
    };
  }

  private requirePlan(plan: string): void {
    requirePlan(this.plans, plan);
  }
}

function newAccount(account: { name: string; email?: string }): AccountRow {
  return { id: newAccountId(), name: account.name, email: account.email ?? null, createdAt: new Date().toISOString() };
}
