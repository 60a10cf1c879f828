import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { defaultPlans } from '../../src/config/catalogue.js';
import { configSchema, type Config } from '../../src/config/schema.js';
import { openKeyStore, type KeyStore } from '../../src/keys/store.js';
import type { UsageDelta } from '../../src/limits/types.js';
import { needService, POSTGRES_URL } from './services.js';

/** The catalogue's plans and key settings after schema defaults, as the gateway sees them. */
export function keyConfig(keys: Partial<Config['keys']> = {}): { keys: Config['keys']; plans: Config['plans'] } {
  const config = configSchema.parse({ chains: {}, plans: defaultPlans(), keys });
  return { keys: config.keys, plans: config.plans };
}

/** A throw-away schema on the test Postgres, so concurrent runs never share tables. */
export async function postgresSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `keys_test_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const separator = POSTGRES_URL.includes('?') ? '&' : '?';
  return {
    url: `${POSTGRES_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/**
 * A key store in a throw-away Postgres schema for the enclosing `describe`: opened before its tests, closed and dropped
 * after. Without Postgres the suite says so and skips (and fails under CI=true).
 */
export function postgresStoreForSuite(): () => KeyStore {
  let schema: Awaited<ReturnType<typeof postgresSchema>> | undefined;
  let store: KeyStore | undefined;
  before(async function () {
    await needService(this, 'Postgres', 5432);
    schema = await postgresSchema();
    store = await openKeyStore(keyConfig({ databaseUrl: schema.url }));
  });
  after(async () => {
    await store?.close();
    await schema?.drop();
  });
  return () => store!;
}

export async function memoryStore(keys: Partial<Config['keys']> = {}): Promise<KeyStore> {
  return openKeyStore(keyConfig({ dataDir: 'memory://', ...keys }));
}

let shared: Promise<KeyStore> | undefined;

/** One in-memory store for every in-process suite. Closed after the run. */
export function sharedMemoryStore(): Promise<KeyStore> {
  return (shared ??= memoryStore());
}

// A root-level hook (this module is loaded while mocha collects the spec files).
after(async () => {
  if (shared) await (await shared).close();
});

/** Admitted requests of a key in a month (`YYYY-MM`), as one delta in the month's first hour. */
export function monthDelta(keyId: string, month: string, count: number, tags = { api: 'rpc', network: 'ethereum' }): UsageDelta {
  return { keyId, hour: Date.parse(`${month}-01T00:00:00Z`), ...tags, outcome: 'ok', count };
}
