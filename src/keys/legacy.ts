/**
 * Earlier versions kept the embedded key store in PGlite (Postgres in WebAssembly, about 250 MB resident). A data
 * directory they wrote is read once, on the first start of this version, into the journal's records; PGlite is loaded
 * only then.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreRecord } from './journalRecords.js';
import type { UsageOutcome } from '../limits/types.js';
import type { KeyTableRow } from './records.js';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export async function readLegacyStore(dataDir: string): Promise<StoreRecord[] | undefined> {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) return undefined;
  const { PGlite } = await import('@electric-sql/pglite');
  const db = new PGlite(dataDir);
  try {
    const tables = await db.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`);
    if (!tables.rows.some((t) => t.name === 'keys')) return [];
    const accounts = await db.query<{ id: string; name: string; email: string | null; created_at: Date }>('SELECT id, name, email, created_at FROM accounts');
    const keys = await db.query<KeyTableRow>('SELECT id, hash, account_id, name, network, plan, flags, created_at, revoked_at FROM keys');
    const usage = await db.query<{ key_id: string; month: string; count: string | number }>('SELECT key_id, month, count FROM usage');
    const hours = tables.rows.some((t) => t.name === 'usage_hourly')
      ? (await db.query<{ key_id: string; hour: Date; api: string; network: string; outcome: UsageOutcome; count: string | number }>('SELECT key_id, hour, api, network, outcome, count FROM usage_hourly')).rows
      : [];
    return [
      ...accounts.rows.map((a): StoreRecord => ({ t: 'account', id: a.id, name: a.name, email: a.email, createdAt: iso(a.created_at)! })),
      ...keys.rows.map(
        (k): StoreRecord => ({
          t: 'key',
          id: k.id,
          hash: k.hash,
          accountId: k.account_id,
          name: k.name,
          network: k.network,
          plan: k.plan,
          flags: k.flags,
          createdAt: iso(k.created_at)!,
          revokedAt: iso(k.revoked_at),
        }),
      ),
      { t: 'months', rows: usage.rows.map((u): [string, string, number] => [u.key_id, u.month, Number(u.count)]) },
      { t: 'hours', rows: hours.map((h) => [h.key_id, new Date(h.hour).getTime(), h.api, h.network, h.outcome, Number(h.count)]) },
    ];
  } finally {
    await db.close();
  }
}
