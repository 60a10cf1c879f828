import type { Sql } from './db.js';

/**
 * The one migration set of the Postgres key store. Each migration is a list of statements, run one at a
 * time. Append only: an applied migration never changes; a schema change is a new entry.
 */
const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE accounts (
     id text PRIMARY KEY,
     name text NOT NULL,
     email text,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
    `CREATE TABLE plans (
     name text PRIMARY KEY,
     requests_per_second double precision NOT NULL,
     monthly_quota bigint NOT NULL,
     apis text[] NOT NULL
   )`,
    `CREATE TABLE keys (
     id text PRIMARY KEY,
     hash text NOT NULL UNIQUE,
     account_id text NOT NULL REFERENCES accounts(id),
     name text NOT NULL,
     network text NOT NULL CHECK (network IN ('mainnet', 'testnet')),
     plan text NOT NULL REFERENCES plans(name),
     flags text[] NOT NULL DEFAULT '{}',
     created_at timestamptz NOT NULL DEFAULT now(),
     revoked_at timestamptz
   )`,
    'CREATE INDEX keys_account_id ON keys (account_id)',
    // No foreign key to keys: usage is flushed in batches by the limiter and must never fail a whole batch.
    `CREATE TABLE usage (
     key_id text NOT NULL,
     month text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
     count bigint NOT NULL DEFAULT 0,
     PRIMARY KEY (key_id, month)
   )`,
  ],
  [
    // The key owner's hourly view, written in the same transaction as the month counts (admitted rows sum to them).
    // `network` is empty for MCP, which has none.
    `CREATE TABLE usage_hourly (
     key_id text NOT NULL,
     hour timestamptz NOT NULL,
     api text NOT NULL,
     network text NOT NULL,
     outcome text NOT NULL CHECK (outcome IN ('ok', 'limited')),
     count bigint NOT NULL DEFAULT 0,
     PRIMARY KEY (key_id, hour, api, network, outcome)
   )`,
  ],
  // Old hourly rows are deleted by age.
  ['CREATE INDEX usage_hourly_hour ON usage_hourly (hour)'],
  [
    // Settled hbar spend of the ledger writes, per budget scope (operator, plan or key, on one network) and window.
    `CREATE TABLE hbar_spend (
     scope text NOT NULL,
     window_start timestamptz NOT NULL,
     tinybar bigint NOT NULL DEFAULT 0,
     PRIMARY KEY (scope, window_start)
   )`,
    // A key's own hbar budget per window; null is its plan's.
    'ALTER TABLE keys ADD COLUMN hbar_limit_tinybar bigint CHECK (hbar_limit_tinybar > 0)',
  ],
];

/** Arbitrary constant: serialises start-up migrations of several gateway instances on one Postgres. */
const MIGRATION_LOCK = 72_316_001;

export async function migrate(sql: Sql): Promise<void> {
  await sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const rows = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((r) => Number(r.version)));
    for (const [index, statements] of MIGRATIONS.entries()) {
      const version = index + 1;
      if (applied.has(version)) continue;
      for (const statement of statements) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
    }
  });
}
