import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import type { UsageStore } from '../limits/types.js';
import { openPglite, openPostgres, type Sql } from './db.js';
import { generateKey, hashKey, newAccountId, newKeyId } from './format.js';
import { lockDataDir } from './lock.js';
import { migrate } from './migrations.js';

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

/** Where the store lives: a PGlite directory, a throw-away PGlite in memory, or a Postgres server. */
export type StoreKind = 'embedded' | 'memory' | 'postgres';

export interface KeyStore extends UsageStore {
  readonly kind: StoreKind;
  createAccount(account: { name: string; email?: string }): Promise<AccountRecord>;
  /** The only time the full key exists outside its owner's hands. */
  createKey(key: NewKey): Promise<{ key: string; record: KeyRecord }>;
  /** The key with this hash, revoked or not; undefined when none. */
  findByHash(hash: string): Promise<StoredKey | undefined>;
  list(): Promise<KeyRecord[]>;
  show(id: string): Promise<KeyRecord>;
  revoke(id: string): Promise<KeyRecord>;
  setPlan(id: string, plan: string): Promise<KeyRecord>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const KEY_COLUMNS = `k.id, k.hash, k.account_id, a.name AS account_name, a.email AS account_email, k.name, k.network, k.plan, k.flags,
  k.created_at, k.revoked_at`;
const KEY_FROM = 'FROM keys k JOIN accounts a ON a.id = k.account_id';

interface KeyRow {
  id: string;
  hash: string;
  account_id: string;
  account_name: string;
  account_email: string | null;
  name: string;
  network: KeyNetwork;
  plan: string;
  flags: KeyFlag[];
  created_at: Date;
  revoked_at: Date | null;
}

function toStoredKey(row: KeyRow): StoredKey {
  return {
    id: row.id,
    hash: row.hash,
    accountId: row.account_id,
    accountName: row.account_name,
    accountEmail: row.account_email,
    name: row.name,
    network: row.network,
    plan: row.plan,
    flags: row.flags,
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
  };
}

function toRecord(row: KeyRow): KeyRecord {
  const { hash: _hash, ...record } = toStoredKey(row);
  return record;
}

/**
 * Opens the key store and applies the migrations: Postgres when `keys.databaseUrl` is set, otherwise PGlite in
 * `keys.dataDir` (`memory://` for a store that lives as long as the process). The configured plans are written to
 * the plans table so keys can only name a plan that exists.
 */
export async function openKeyStore(opts: { keys: Config['keys']; plans: Config['plans'] }): Promise<KeyStore> {
  const { databaseUrl, dataDir } = opts.keys;
  const kind: StoreKind = databaseUrl ? 'postgres' : dataDir.startsWith('memory://') ? 'memory' : 'embedded';
  const unlock = kind === 'embedded' ? lockDataDir(dataDir) : () => {};
  let sql: Sql;
  try {
    sql = databaseUrl ? await openPostgres(databaseUrl) : await openPglite(dataDir);
  } catch (err) {
    unlock();
    throw err;
  }
  try {
    await migrate(sql);
    await syncPlans(sql, opts.plans);
  } catch (err) {
    await sql.close();
    unlock();
    throw err;
  }
  return new SqlKeyStore(kind, sql, opts.plans, unlock);
}

async function syncPlans(sql: Sql, plans: Config['plans']): Promise<void> {
  for (const [name, plan] of Object.entries(plans)) {
    await sql.query(
      `INSERT INTO plans (name, requests_per_second, monthly_quota, apis) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name) DO UPDATE SET requests_per_second = $2, monthly_quota = $3, apis = $4`,
      [name, plan.requestsPerSecond, plan.monthlyQuota, plan.apis],
    );
  }
}

async function insertAccount(sql: Pick<Sql, 'query'>, account: { name: string; email?: string }): Promise<AccountRecord> {
  const [row] = await sql.query<{ id: string; name: string; email: string | null; created_at: Date }>(
    'INSERT INTO accounts (id, name, email) VALUES ($1, $2, $3) RETURNING id, name, email, created_at',
    [newAccountId(), account.name, account.email ?? null],
  );
  return { id: row.id, name: row.name, email: row.email, createdAt: new Date(row.created_at) };
}

class SqlKeyStore implements KeyStore {
  constructor(
    readonly kind: StoreKind,
    private readonly sql: Sql,
    private readonly plans: Config['plans'],
    private readonly unlock: () => void,
  ) {}

  createAccount(account: { name: string; email?: string }): Promise<AccountRecord> {
    return insertAccount(this.sql, account);
  }

  async createKey(spec: NewKey): Promise<{ key: string; record: KeyRecord }> {
    const plan = spec.plan ?? 'free';
    this.requirePlan(plan);
    const key = generateKey();
    const id = newKeyId();
    await this.sql.transaction(async (tx) => {
      let accountId: string;
      if ('account' in spec) {
        accountId = (await insertAccount(tx, spec.account)).id;
      } else {
        accountId = spec.accountId;
        const [account] = await tx.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
        if (!account) throw new GatewayError('ACCOUNT_NOT_FOUND', accountId);
      }
      await tx.query('INSERT INTO keys (id, hash, account_id, name, network, plan, flags) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        id,
        hashKey(key),
        accountId,
        spec.name,
        spec.network ?? 'mainnet',
        plan,
        [...new Set(spec.flags ?? [])],
      ]);
    });
    return { key, record: await this.show(id) };
  }

  async findByHash(hash: string): Promise<StoredKey | undefined> {
    const [row] = await this.sql.query<KeyRow>(`SELECT ${KEY_COLUMNS} ${KEY_FROM} WHERE k.hash = $1`, [hash]);
    return row && toStoredKey(row);
  }

  async list(): Promise<KeyRecord[]> {
    return (await this.sql.query<KeyRow>(`SELECT ${KEY_COLUMNS} ${KEY_FROM} ORDER BY k.created_at, k.id`)).map(toRecord);
  }

  async show(id: string): Promise<KeyRecord> {
    const [row] = await this.sql.query<KeyRow>(`SELECT ${KEY_COLUMNS} ${KEY_FROM} WHERE k.id = $1`, [id]);
    if (!row) throw new GatewayError('KEY_NOT_FOUND', id);
    return toRecord(row);
  }

  async revoke(id: string): Promise<KeyRecord> {
    // A second revoke keeps the first revocation time.
    const rows = await this.sql.query('UPDATE keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING id', [id]);
    if (rows.length === 0) throw new GatewayError('KEY_NOT_FOUND', id);
    return this.show(id);
  }

  async setPlan(id: string, plan: string): Promise<KeyRecord> {
    this.requirePlan(plan);
    const rows = await this.sql.query('UPDATE keys SET plan = $2 WHERE id = $1 RETURNING id', [id, plan]);
    if (rows.length === 0) throw new GatewayError('KEY_NOT_FOUND', id);
    return this.show(id);
  }

  async addUsage(deltas: Array<{ keyId: string; month: string; count: number }>): Promise<void> {
    // One statement is atomic; rows are merged first because one INSERT may not touch the same row twice.
    const merged = new Map<string, { keyId: string; month: string; count: number }>();
    for (const d of deltas) {
      const at = `${d.keyId}\u0000${d.month}`;
      const prior = merged.get(at);
      if (prior) prior.count += d.count;
      else merged.set(at, { ...d });
    }
    if (merged.size === 0) return;
    const rows = [...merged.values()];
    await this.sql.query(
      `INSERT INTO usage (key_id, month, count)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
       ON CONFLICT (key_id, month) DO UPDATE SET count = usage.count + excluded.count`,
      [rows.map((r) => r.keyId), rows.map((r) => r.month), rows.map((r) => r.count)],
    );
  }

  async usage(keyId: string, month: string): Promise<number> {
    const [row] = await this.sql.query<{ count: string | number }>('SELECT count FROM usage WHERE key_id = $1 AND month = $2', [keyId, month]);
    return row ? Number(row.count) : 0;
  }

  async ping(): Promise<void> {
    await this.sql.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.sql.close();
    this.unlock();
  }

  private requirePlan(plan: string): void {
    if (!Object.prototype.hasOwnProperty.call(this.plans, plan)) {
      throw new GatewayError('PLAN_UNKNOWN', `"${plan}"; plans are ${Object.keys(this.plans).join(', ')}`);
    }
  }
}
