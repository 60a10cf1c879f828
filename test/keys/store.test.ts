import { expect } from 'chai';
import { PGlite } from '@electric-sql/pglite';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isGatewayError } from '../../src/errors.js';
import { hashKey, KEY_PREFIX } from '../../src/keys/format.js';
import { migrate } from '../../src/keys/migrations.js';
import { openKeyStore, type KeyStore } from '../../src/keys/store.js';
import { needService } from '../support/services.js';
import { keyConfig, monthDelta, postgresSchema } from '../support/keyStores.js';

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (isGatewayError(err)) return err.errorName;
    throw err;
  }
  throw new Error('expected a refusal');
}

/** The same behaviour, whichever database is underneath. */
function storeBehaviour(open: () => Promise<KeyStore>) {
  let store: KeyStore;
  before(async () => {
    store = await open();
  });
  after(async () => store?.close());

  it('creates a key shown once in full, stores only its hash, and finds it by hash', async () => {
    const account = await store.createAccount({ name: 'Acme', email: 'ops@acme.test' });
    const { key, record } = await store.createKey({ accountId: account.id, name: 'web', plan: 'developer', network: 'testnet', flags: ['relay_beta'] });
    expect(key.startsWith(KEY_PREFIX)).to.equal(true);
    // 192 random bits in base64url: 32 characters from the URL-safe alphabet.
    expect(key.slice(KEY_PREFIX.length)).to.match(/^[A-Za-z0-9_-]{32}$/);
    expect(record).to.include({ accountId: account.id, accountName: 'Acme', accountEmail: 'ops@acme.test', name: 'web', plan: 'developer', network: 'testnet' });
    expect(record.flags).to.deep.equal(['relay_beta']);
    expect(record.revokedAt).to.equal(null);
    expect(JSON.stringify(record)).not.to.include(key.slice(KEY_PREFIX.length));
    const found = await store.findByHash(hashKey(key));
    expect(found?.id).to.equal(record.id);
    expect(found?.hash).to.equal(hashKey(key));
    expect(await store.findByHash(hashKey(`${key}x`))).to.equal(undefined);
  });

  it('gives every key a distinct id and secret', async () => {
    const account = await store.createAccount({ name: 'Many' });
    const made = await Promise.all([1, 2, 3, 4, 5].map(() => store.createKey({ accountId: account.id, name: 'k' })));
    expect(new Set(made.map((m) => m.key)).size).to.equal(5);
    expect(new Set(made.map((m) => m.record.id)).size).to.equal(5);
    expect(made[0].record).to.include({ plan: 'free', network: 'mainnet' });
  });

  it('lists, shows, revokes and changes plans, refusing unknown ids and plans', async () => {
    const account = await store.createAccount({ name: 'Ops' });
    const { key, record } = await store.createKey({ accountId: account.id, name: 'svc', plan: 'free' });
    expect((await store.list()).map((k) => k.id)).to.include(record.id);
    expect((await store.setPlan(record.id, 'startup')).plan).to.equal('startup');
    expect((await store.show(record.id)).plan).to.equal('startup');
    const revoked = await store.revoke(record.id);
    expect(revoked.revokedAt).to.be.instanceOf(Date);
    expect((await store.findByHash(hashKey(key)))?.revokedAt).to.be.instanceOf(Date);
    expect((await store.revoke(record.id)).revokedAt?.getTime()).to.equal(revoked.revokedAt?.getTime());
    expect(await refusal(store.show('key_nope'))).to.equal('KEY_NOT_FOUND');
    expect(await refusal(store.revoke('key_nope'))).to.equal('KEY_NOT_FOUND');
    expect(await refusal(store.setPlan(record.id, 'platinum'))).to.equal('PLAN_UNKNOWN');
    expect(await refusal(store.setPlan('key_nope', 'free'))).to.equal('KEY_NOT_FOUND');
    expect(await refusal(store.createKey({ accountId: account.id, name: 'x', plan: 'platinum' }))).to.equal('PLAN_UNKNOWN');
    expect(await refusal(store.createKey({ accountId: 'acc_nope', name: 'x' }))).to.equal('ACCOUNT_NOT_FOUND');
  });

  it("shows an account's keys in the order they were made, even within one millisecond", async () => {
    const account = await store.createAccount({ name: 'Ordered' });
    const names = Array.from({ length: 10 }, (_, i) => `k${i}`);
    for (const name of names) await store.createKey({ accountId: account.id, name });
    expect((await store.accountKeys(account.id)).map((k) => k.name)).to.deep.equal(names);
    expect((await store.list()).filter((k) => k.accountId === account.id).map((k) => k.name)).to.deep.equal(names);
  });

  it('creates an account together with its key', async () => {
    const { record } = await store.createKey({ account: { name: 'Together', email: 'a@b.test' }, name: 't', plan: 'premium' });
    expect(record).to.include({ accountName: 'Together', accountEmail: 'a@b.test', plan: 'premium' });
    expect(record.accountId).to.match(/^acc_/);
  });

  it('adds usage atomically per key and month, including concurrent and repeated deltas', async () => {
    await store.addUsage([monthDelta('key_u1', '2026-11', 3), monthDelta('key_u1', '2026-11', 4), monthDelta('key_u1', '2026-10', 1)]);
    await Promise.all(Array.from({ length: 10 }, () => store.addUsage([monthDelta('key_u1', '2026-11', 5)])));
    await store.addUsage([]);
    expect(await store.usage('key_u1', '2026-11')).to.equal(57);
    expect(await store.usage('key_u1', '2026-10')).to.equal(1);
    expect(await store.usage('key_u1', '2026-09')).to.equal(0);
    expect(await store.usage('key_other', '2026-11')).to.equal(0);
  });

  it('keeps hourly rows by API, network and outcome; only admitted ones count against the month', async () => {
    const h = Date.UTC(2026, 10, 23, 8);
    const row = (hour: number, api: string, network: string, outcome: 'ok' | 'limited', count: number) => ({ keyId: 'key_h1', hour, api, network, outcome, count });
    await store.addUsage([row(h, 'rpc', 'hedera-testnet', 'ok', 10), row(h, 'rpc', 'hedera-testnet', 'ok', 2), row(h, 'rest', 'hedera-testnet', 'ok', 1), row(h, 'rpc', 'hedera-testnet', 'limited', 4)]);
    await store.addUsage([row(h + 3_600_000, 'mcp', '', 'ok', 5), row(h - 3_600_000, 'rpc', 'ethereum', 'ok', 7)]);
    expect(await store.usage('key_h1', '2026-11')).to.equal(25);
    expect(await store.hourlyUsage('key_h1', h)).to.deep.equal([
      row(h, 'rest', 'hedera-testnet', 'ok', 1),
      row(h, 'rpc', 'hedera-testnet', 'limited', 4),
      row(h, 'rpc', 'hedera-testnet', 'ok', 12),
      row(h + 3_600_000, 'mcp', '', 'ok', 5),
    ]);
    await store.pruneHourly!(h);
    expect(await store.hourlyUsage('key_h1', 0)).to.have.length(4);
    expect(await store.usage('key_h1', '2026-11')).to.equal(25);
  });

  it('adds settled hbar spend per scope and window, concurrent adds included, and keeps a key\'s own hbar budget', async () => {
    const w = Date.UTC(2026, 10, 23);
    await Promise.all(Array.from({ length: 10 }, () => store.addHbarSpend([{ scope: 'key:key_s1:hedera', window: w, tinybar: 100 }, { scope: 'operator:hedera', window: w, tinybar: 100 }])));
    await store.addHbarSpend([{ scope: 'key:key_s1:hedera', window: w + 86_400_000, tinybar: 7 }]);
    expect(await store.hbarSpend(['operator:hedera', 'key:key_s1:hedera', 'key:nobody:hedera'], w)).to.deep.equal([1_000, 1_000, 0]);
    expect(await store.hbarSpend(['key:key_s1:hedera'], w + 86_400_000)).to.deep.equal([7]);
    const { record } = await store.createKey({ account: { name: 'Hbar' }, name: 'h' });
    expect(record.hbarLimitTinybar).to.equal(null);
    expect((await store.setHbarLimit(record.id, 123_456)).hbarLimitTinybar).to.equal(123_456);
    expect((await store.list()).find((k) => k.id === record.id)!.hbarLimitTinybar).to.equal(123_456);
    expect((await store.setHbarLimit(record.id, null)).hbarLimitTinybar).to.equal(null);
    expect(await refusal(store.setHbarLimit('key_000000000000', 1))).to.equal('KEY_NOT_FOUND');
  });

  it('answers ping', async () => {
    await store.ping();
  });
}

describe('key store', () => {
  describe('embedded default (a journal on disk)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-store-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    storeBehaviour(() => openKeyStore(keyConfig({ dataDir: dir })));

    it('keeps keys across a restart and refuses a second opener meanwhile', async () => {
      const other = join(dir, 'restart');
      const first = await openKeyStore(keyConfig({ dataDir: other }));
      const account = await first.createAccount({ name: 'Persist' });
      const { key, record } = await first.createKey({ accountId: account.id, name: 'p' });
      await first.setPlan(record.id, 'startup');
      await first.addUsage([monthDelta(record.id, '2026-01', 3)]);
      await first.setHbarLimit(record.id, 5_000);
      await first.addHbarSpend([{ scope: `key:${record.id}:hedera`, window: 0, tinybar: 42 }]);
      expect(await refusal(openKeyStore(keyConfig({ dataDir: other })))).to.equal('KEY_STORE_LOCKED');
      await first.close();
      const second = await openKeyStore(keyConfig({ dataDir: other }));
      try {
        expect(await second.findByHash(hashKey(key))).to.include({ accountName: 'Persist', plan: 'startup' });
        expect(await second.usage(record.id, '2026-01')).to.equal(3);
        expect((await second.show(record.id)).hbarLimitTinybar).to.equal(5_000);
        expect(await second.hbarSpend([`key:${record.id}:hedera`], 0)).to.deep.equal([42]);
      } finally {
        await second.close();
      }
    });

    it('keeps every change it answered when the process is killed mid-write, and drops a torn last line', async function () {
      this.timeout(120_000);
      const crashDir = join(dir, 'crash');
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'journalWriter.ts'), crashDir], { stdio: ['ignore', 'pipe', 'inherit'] });
      const answered: string[] = [];
      let buffered = '';
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk) => {
          buffered += chunk;
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          answered.push(...lines);
          if (answered.length >= 50 && child.exitCode === null) child.kill('SIGKILL');
        });
        child.once('exit', () => resolve());
      });
      // A write cut short by a crash: half a line at the end of the file.
      appendFileSync(join(crashDir, 'keys.journal'), '[{"t":"key","id":"key_torn');
      const store = await openKeyStore(keyConfig({ dataDir: crashDir }));
      try {
        for (const line of answered) {
          const [key, n] = line.split(' ');
          expect((await store.findByHash(hashKey(key)))?.name).to.equal(`k${n}`);
        }
        expect(await store.usage('key_crash', '2026-01')).to.be.at.least(answered.length);
        // Writing goes on after the dropped line, and is read back after another restart.
        const { key } = await store.createKey({ account: { name: 'after' }, name: 'after' });
        await store.close();
        const again = await openKeyStore(keyConfig({ dataDir: crashDir }));
        expect((await again.findByHash(hashKey(key)))?.name).to.equal('after');
        await again.close();
      } finally {
        await store.close();
      }
    });

    it('takes over the keys and usage of a data directory an earlier version kept in PGlite', async function () {
      this.timeout(120_000);
      const legacyDir = join(dir, 'legacy');
      const db = new PGlite(legacyDir);
      const sql = {
        query: async <T>(text: string, params?: unknown[]) => (await db.query<T>(text, params)).rows,
        transaction: <T>(fn: (tx: { query<R>(text: string, params?: unknown[]): Promise<R[]> }) => Promise<T>) =>
          db.transaction((tx) => fn({ query: async <R>(text: string, params?: unknown[]) => (await tx.query<R>(text, params)).rows })),
        close: () => db.close(),
      };
      await migrate(sql);
      await sql.query(`INSERT INTO plans (name, requests_per_second, monthly_quota, apis) VALUES ('developer', 50, 5000000, '{rpc}')`);
      await sql.query(`INSERT INTO accounts (id, name, email) VALUES ('acc_000000000001', 'Old', 'old@example.test')`);
      await sql.query(`INSERT INTO keys (id, hash, account_id, name, network, plan, flags, revoked_at) VALUES
        ('key_000000000001', $1, 'acc_000000000001', 'kept', 'testnet', 'developer', '{relay_beta}', NULL),
        ('key_000000000002', $2, 'acc_000000000001', 'gone', 'mainnet', 'developer', '{}', now())`, [hashKey('pk_prod_old1'), hashKey('pk_prod_old2')]);
      await sql.query(`INSERT INTO usage (key_id, month, count) VALUES ('key_000000000001', '2026-01', 42)`);
      await db.close();
      for (let restart = 0; restart < 2; restart++) {
        const store = await openKeyStore(keyConfig({ dataDir: legacyDir }));
        try {
          expect(await store.findByHash(hashKey('pk_prod_old1'))).to.deep.include({ id: 'key_000000000001', accountEmail: 'old@example.test', network: 'testnet', flags: ['relay_beta'], revokedAt: null });
          expect((await store.findByHash(hashKey('pk_prod_old2')))?.revokedAt).to.be.instanceOf(Date);
          expect(await store.usage('key_000000000001', '2026-01')).to.equal(42 + restart);
          await store.addUsage([monthDelta('key_000000000001', '2026-01', 1)]);
        } finally {
          await store.close();
        }
      }
    });
  });

  describe('in memory (memory://)', () => {
    storeBehaviour(() => openKeyStore(keyConfig({ dataDir: 'memory://' })));
  });

  describe('Postgres (DATABASE_URL)', () => {
    let schema: Awaited<ReturnType<typeof postgresSchema>> | undefined;
    before(async function () {
      await needService(this, 'Postgres', 5432);
      schema = await postgresSchema();
    });
    after(async () => schema?.drop());
    storeBehaviour(() => openKeyStore(keyConfig({ databaseUrl: schema!.url })));

    it('lets two gateway instances start on one database, migrating once', async () => {
      const [a, b] = await Promise.all([openKeyStore(keyConfig({ databaseUrl: schema!.url })), openKeyStore(keyConfig({ databaseUrl: schema!.url }))]);
      try {
        const account = await a.createAccount({ name: 'Shared' });
        const { key } = await a.createKey({ accountId: account.id, name: 's' });
        expect((await b.findByHash(hashKey(key)))?.accountName).to.equal('Shared');
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });
});
