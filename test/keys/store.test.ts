import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isGatewayError } from '../../src/errors.js';
import { hashKey, KEY_PREFIX } from '../../src/keys/format.js';
import { openKeyStore, type KeyStore } from '../../src/keys/store.js';
import { needService } from '../support/services.js';
import { keyConfig, postgresSchema } from '../support/keyStores.js';

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

  it('creates an account together with its key', async () => {
    const { record } = await store.createKey({ account: { name: 'Together', email: 'a@b.test' }, name: 't', plan: 'premium' });
    expect(record).to.include({ accountName: 'Together', accountEmail: 'a@b.test', plan: 'premium' });
    expect(record.accountId).to.match(/^acc_/);
  });

  it('adds usage atomically per key and month, including concurrent and repeated deltas', async () => {
    await store.addUsage([
      { keyId: 'key_u1', month: '2026-11', count: 3 },
      { keyId: 'key_u1', month: '2026-11', count: 4 },
      { keyId: 'key_u1', month: '2026-10', count: 1 },
    ]);
    await Promise.all(Array.from({ length: 10 }, () => store.addUsage([{ keyId: 'key_u1', month: '2026-11', count: 5 }])));
    await store.addUsage([]);
    expect(await store.usage('key_u1', '2026-11')).to.equal(57);
    expect(await store.usage('key_u1', '2026-10')).to.equal(1);
    expect(await store.usage('key_u1', '2026-09')).to.equal(0);
    expect(await store.usage('key_other', '2026-11')).to.equal(0);
  });

  it('answers ping', async () => {
    await store.ping();
  });
}

describe('key store', () => {
  describe('embedded default (PGlite on disk)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-store-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    storeBehaviour(() => openKeyStore(keyConfig({ dataDir: dir })));

    it('keeps keys across a restart, applying migrations once, and refuses a second opener meanwhile', async () => {
      const other = join(dir, 'restart');
      const first = await openKeyStore(keyConfig({ dataDir: other }));
      const account = await first.createAccount({ name: 'Persist' });
      const { key } = await first.createKey({ accountId: account.id, name: 'p' });
      expect(await refusal(openKeyStore(keyConfig({ dataDir: other })))).to.equal('KEY_STORE_LOCKED');
      await first.close();
      const second = await openKeyStore(keyConfig({ dataDir: other }));
      try {
        expect((await second.findByHash(hashKey(key)))?.accountName).to.equal('Persist');
      } finally {
        await second.close();
      }
    });
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
