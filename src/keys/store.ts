import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import { monthOf } from '../limits/calendar.js';
import type { HbarSpendRow } from '../limits/hbarSpend.js';
import type { UsageDelta, UsageOutcome } from '../limits/types.js';
import { openPostgres, type Sql } from './db.js';
import { openEmbeddedStore } from './embedded.js';
import { generateKey, hashKey, newAccountId, newKeyId } from './format.js';
import { lockDataDir } from './lock.js';
import { migrate } from './migrations.js';
import { requirePlan, type AccountRecord, type AccountSummary, type KeyRecord, type KeyStore, type KeyTableRow, type NewKey, type StoreKind, type StoredKey } from './records.js';

// The store's users import what a store is from here, beside how one is opened.
export { KEY_FLAGS, KEY_NETWORKS, type AccountRecord, type AccountSummary, type KeyFlag, type KeyNetwork, type KeyRecord, type KeyStore, type NewKey, type StoreKind, type StoredKey } from './records.js';

const KEY_COLUMNS = `k.id, k.hash, k.account_id, a.name AS account_name, a.email AS account_email, k.name, k.network, k.plan, k.flags,
  k.hbar_limit_tinybar, k.created_at, k.revoked_at`;
const KEY_FROM = 'FROM keys k JOIN accounts a ON a.id = k.account_id';

interface KeyRow extends KeyTableRow {
  account_name: string;
  account_email: string | null;
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
    hbarLimitTinybar: row.hbar_limit_tinybar == null ? null : Number(row.hbar_limit_tinybar),
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
  };
}

function toRecord(row: KeyRow): KeyRecord {
  const { hash: _hash, ...record } = toStoredKey(row);
  return record;
}

/**
 * Opens the key store: Postgres when `keys.databaseUrl` is set (migrations applied, the configured plans written to
 * the plans table so keys can only name a plan that exists), otherwise the embedded store in `keys.dataDir`
 * (`memory://` for a store that lives as long as the process).
 */
export async function openKeyStore(opts: { keys: Config['keys']; plans: Config['plans'] }): Promise<KeyStore> {
  const { databaseUrl, dataDir } = opts.keys;
  if (!databaseUrl) {
    if (dataDir.startsWith('memory://')) return openEmbeddedStore('memory', opts, () => {});
    const unlock = await lockDataDir(dataDir);
    try {
      return await openEmbeddedStore('embedded', opts, unlock);
    } catch (err) {
      unlock();
      throw err;
    }
  }
  const sql = await openPostgres(databaseUrl);
  try {
    await migrate(sql);
    await syncPlans(sql, opts.plans);
  } catch (err) {
    await sql.close();
    throw unreachable(databaseUrl, err);
  }
  return new SqlKeyStore('postgres', sql, opts.plans, opts.keys.maxPerAccount);
}

/**
 * A database that cannot be reached or refuses the login is a setting to fix, named in one line: never a stack trace
 * from the driver, and never the URL's password. SQL errors (a migration that fails) keep their own message and stack.
 */
function unreachable(databaseUrl: string, err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  // System errors (ENOTFOUND, ECONNREFUSED...), and SQLSTATE classes 08 (connection), 28 (login) and 3D (no such database).
  if (typeof code !== 'string' || !/^(E[A-Z]+|08...|28...|3D...)$/.test(code)) return err;
  return new GatewayError('KEY_DATABASE_UNREACHABLE', `${withoutCredentials(databaseUrl)}: ${(err as Error).message}`);
}

function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'a URL that does not parse';
  }
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
    private readonly maxPerAccount: number,
  ) {}

  createAccount(account: { name: string; email?: string }): Promise<AccountRecord> {
    return insertAccount(this.sql, account);
  }

  async listAccounts(): Promise<AccountSummary[]> {
    const rows = await this.sql.query<{ id: string; name: string; email: string | null; created_at: Date; keys: string | number; active_keys: string | number }>(
      `SELECT a.id, a.name, a.email, a.created_at, count(k.id) AS keys, count(k.id) FILTER (WHERE k.revoked_at IS NULL) AS active_keys
       FROM accounts a LEFT JOIN keys k ON k.account_id = a.id GROUP BY a.id ORDER BY a.created_at, a.id`,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, email: r.email, createdAt: new Date(r.created_at), keys: Number(r.keys), activeKeys: Number(r.active_keys) }));
  }

  async showAccount(id: string): Promise<AccountRecord> {
    const [row] = await this.sql.query<{ id: string; name: string; email: string | null; created_at: Date }>('SELECT id, name, email, created_at FROM accounts WHERE id = $1', [id]);
    if (!row) throw new GatewayError('ACCOUNT_NOT_FOUND', id);
    return { id: row.id, name: row.name, email: row.email, createdAt: new Date(row.created_at) };
  }

  async accountKeys(id: string): Promise<KeyRecord[]> {
    await this.showAccount(id);
    return (await this.sql.query<KeyRow>(`SELECT ${KEY_COLUMNS} ${KEY_FROM} WHERE k.account_id = $1 ORDER BY k.created_at, k.id`, [id])).map(toRecord);
  }

  async revokeAccount(id: string): Promise<KeyRecord[]> {
    await this.showAccount(id);
    await this.sql.query('UPDATE keys SET revoked_at = COALESCE(revoked_at, now()) WHERE account_id = $1', [id]);
    return this.accountKeys(id);
  }

  async setAccountPlan(id: string, plan: string): Promise<KeyRecord[]> {
    this.requirePlan(plan);
    await this.showAccount(id);
    await this.sql.query('UPDATE keys SET plan = $2 WHERE account_id = $1', [id, plan]);
    return this.accountKeys(id);
  }

  async createKey(spec: NewKey): Promise<{ key: string; record: KeyRecord }> {
    const plan = spec.plan ?? 'free';
    this.requirePlan(plan);
    const key = generateKey();
    const id = newKeyId();
    await this.sql.transaction(async (tx) => {
      let accountId: string;
      if ('account' in spec) {
        // A new account per key would make the cap meaningless; accounts sharing an email address share it.
        if (spec.account.email) {
          await this.checkCap(tx, 'lower(a.email) = lower($1)', spec.account.email);
        }
        accountId = (await insertAccount(tx, spec.account)).id;
      } else {
        accountId = spec.accountId;
        const [account] = await tx.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
        if (!account) throw new GatewayError('ACCOUNT_NOT_FOUND', accountId);
        await this.checkCap(tx, 'a.id = $1', accountId);
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

  private async checkCap(tx: Pick<Sql, 'query'>, where: string, value: string): Promise<void> {
    const [row] = await tx.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM keys k JOIN accounts a ON a.id = k.account_id WHERE k.revoked_at IS NULL AND ${where}`,
      [value],
    );
    if (Number(row.n) >= this.maxPerAccount) throw new GatewayError('KEYS_PER_ACCOUNT', `at most ${this.maxPerAccount} active keys`);
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

  async setHbarLimit(id: string, tinybar: number | null): Promise<KeyRecord> {
    const rows = await this.sql.query('UPDATE keys SET hbar_limit_tinybar = $2 WHERE id = $1 RETURNING id', [id, tinybar]);
    if (rows.length === 0) throw new GatewayError('KEY_NOT_FOUND', id);
    return this.show(id);
  }

  async addHbarSpend(rows: HbarSpendRow[]): Promise<void> {
    if (rows.length === 0) return;
    // Scope order, so two instances settling at once lock rows in the same order.
    const sorted = [...rows].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.window - b.window));
    await this.sql.query(
      `INSERT INTO hbar_spend (scope, window_start, tinybar)
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[])
       ON CONFLICT (scope, window_start) DO UPDATE SET tinybar = hbar_spend.tinybar + excluded.tinybar`,
      [sorted.map((r) => r.scope), sorted.map((r) => new Date(r.window).toISOString()), sorted.map((r) => r.tinybar)],
    );
  }

  async hbarSpend(scopes: string[], window: number): Promise<number[]> {
    const rows = await this.sql.query<{ scope: string; tinybar: string | number }>(
      'SELECT scope, tinybar FROM hbar_spend WHERE scope = ANY($1::text[]) AND window_start = $2',
      [scopes, new Date(window).toISOString()],
    );
    const spent = new Map(rows.map((r) => [r.scope, Number(r.tinybar)]));
    return scopes.map((s) => spent.get(s) ?? 0);
  }

  async addUsage(deltas: UsageDelta[]): Promise<void> {
    // One INSERT may not touch a row twice, so deltas are merged first; rows go in primary-key order so that two
    // instances flushing at once lock them in the same order and never deadlock.
    const hourly = new Map<string, UsageDelta>();
    const monthly = new Map<string, { keyId: string; month: string; count: number }>();
    for (const d of deltas) {
      const at = [d.keyId, new Date(d.hour).toISOString(), d.api, d.network, d.outcome].join('\u0000');
      const prior = hourly.get(at);
      if (prior) prior.count += d.count;
      else hourly.set(at, { ...d });
      if (d.outcome !== 'ok') continue;
      const month = monthOf(d.hour);
      const m = monthly.get(`${d.keyId}\u0000${month}`);
      if (m) m.count += d.count;
      else monthly.set(`${d.keyId}\u0000${month}`, { keyId: d.keyId, month, count: d.count });
    }
    if (hourly.size === 0) return;
    const hours = [...hourly.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, d]) => d);
    const months = [...monthly.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, m]) => m);
    await this.sql.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO usage_hourly (key_id, hour, api, network, outcome, count)
         SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::bigint[])
         ON CONFLICT (key_id, hour, api, network, outcome) DO UPDATE SET count = usage_hourly.count + excluded.count`,
        [hours.map((d) => d.keyId), hours.map((d) => new Date(d.hour).toISOString()), hours.map((d) => d.api), hours.map((d) => d.network), hours.map((d) => d.outcome), hours.map((d) => d.count)],
      );
      if (months.length === 0) return;
      await tx.query(
        `INSERT INTO usage (key_id, month, count)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
         ON CONFLICT (key_id, month) DO UPDATE SET count = usage.count + excluded.count`,
        [months.map((r) => r.keyId), months.map((r) => r.month), months.map((r) => r.count)],
      );
    });
  }

  async pruneHourly(beforeHour: number): Promise<void> {
    await this.sql.query('DELETE FROM usage_hourly WHERE hour < $1', [new Date(beforeHour).toISOString()]);
  }

  async hourlyUsage(keyId: string, sinceHour: number): Promise<UsageDelta[]> {
    const rows = await this.sql.query<{ hour: Date; api: string; network: string; outcome: UsageOutcome; count: string | number }>(
      'SELECT hour, api, network, outcome, count FROM usage_hourly WHERE key_id = $1 AND hour >= $2 ORDER BY hour, api, network, outcome',
      [keyId, new Date(sinceHour).toISOString()],
    );
    return rows.map((r) => ({ keyId, hour: new Date(r.hour).getTime(), api: r.api, network: r.network, outcome: r.outcome, count: Number(r.count) }));
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
  }

  private requirePlan(plan: string): void {
    requirePlan(this.plans, plan);
  }
}
