import { validate } from '@readme/openapi-parser';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { ADMIN_OPERATIONS } from '../../src/keys/adminApi.js';
import { monthOf } from '../../src/limits/calendar.js';
import { createLogger } from '../../src/log.js';
import { inOneMonth } from '../support/calendar.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const TOKEN = 'operator-token-for-tests-0123456789';

/** One call to the admin API; `token: null` sends none. */
async function admin(base: string, method: string, path: string, opts: { body?: unknown; token?: string | null } = {}) {
  const token = opts.token === undefined ? TOKEN : opts.token;
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

const chainId = (base: string, key: string) =>
  fetch(`${base}/ethereum-sepolia/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  });

describe('admin API (/admin/v1 on the private listener)', () => {
  let t: TestGateway;
  let base: string;
  let logs = '';

  before(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs += String(chunk);
        done();
      },
    });
    t = await startTestGateway({ admin: { token: TOKEN }, keys: { dataDir: 'memory://', demoKey: false, cacheTtlMs: 200 } }, { logger: createLogger('info', sink) });
    base = t.gw.adminUrl!;
  });
  after(() => t?.close());

  it('listens on loopback on its own port, not on the public listener', async () => {
    expect(base).to.match(/^http:\/\/127\.0\.0\.1:\d+\/admin\/v1$/);
    expect(new URL(base).port).not.to.equal(String(t.gw.port));
    const onPublic = await fetch(`${t.gw.url}/admin/v1/keys`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(onPublic.status).to.equal(404);
  });

  it('answers 401 without the token or with a wrong one', async () => {
    for (const token of [null, 'wrong', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
      const res = await admin(base, 'GET', '/keys', { token });
      expect(res.status, String(token)).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
      expect(res.json.error.message).to.include('Operator token');
    }
    expect(logs).not.to.include(TOKEN);
  });

  it('creates, lists, shows, re-plans and revokes a key; this instance applies the change at once', async () => {
    const created = await admin(base, 'POST', '/keys', { body: { name: 'Indexer', plan: 'developer', network: 'testnet', flags: ['relay_beta'], email: 'ops@example.com' } });
    expect(created.status).to.equal(201);
    const { key, record } = created.json;
    expect(key).to.match(/^pk_prod_/);
    expect(record).to.include({ name: 'Indexer', plan: 'developer', network: 'testnet', revokedAt: null });
    expect(record.flags).to.deep.equal(['relay_beta']);
    expect((await chainId(t.gw.url, key)).status).to.equal(200);

    const list = await admin(base, 'GET', '/keys');
    expect(list.json.keys.map((k: { id: string }) => k.id)).to.include(record.id);
    expect(JSON.stringify(list.json)).not.to.include(key);
    expect((await admin(base, 'GET', `/keys/${record.id}`)).json).to.deep.include({ id: record.id, accountName: 'Indexer', accountEmail: 'ops@example.com' });

    // This instance applies a change made through its own admin API at once, without waiting for its key cache.
    const replanned = await admin(base, 'PUT', `/keys/${record.id}/plan`, { body: { plan: 'startup' } });
    expect(replanned.json.plan).to.equal('startup');
    expect((await chainId(t.gw.url, key)).headers.get('ratelimit-limit')).to.equal('200');

    const revoked = await admin(base, 'POST', `/keys/${record.id}/revoke`);
    expect(revoked.status).to.equal(200);
    expect(revoked.json.revokedAt).to.be.a('string');
    expect((await chainId(t.gw.url, key)).status).to.equal(401);
  });

  it("reads a key's usage for this month against its plan's quota", () =>
    inOneMonth(async () => {
      const { key, id } = await t.newKey('developer');
      for (let i = 0; i < 3; i++) expect((await chainId(t.gw.url, key)).status).to.equal(200);
      // Closing the limiter flushes its counts to the store (again on a second run).
      await t.gw.limiter.close();
      const usage = await admin(base, 'GET', `/keys/${id}/usage`);
      expect(usage.json).to.deep.equal({ keyId: id, plan: 'developer', month: monthOf(Date.now()), used: 3, quota: 5_000_000 });
    }));

  it('reads the usage of another month, and refuses a month it cannot read', async () => {
    const { id } = await t.newKey('developer');
    expect((await admin(base, 'GET', `/keys/${id}/usage?month=2020-01`)).json.used).to.equal(0);
    expect((await admin(base, 'GET', `/keys/${id}/usage?month=last`)).status).to.equal(400);
  });

  it('manages accounts: create, list, show with keys, re-plan and revoke every key', async () => {
    const account = await admin(base, 'POST', '/accounts', { body: { name: 'Acme', email: 'acme@example.com' } });
    expect(account.status).to.equal(201);
    const id = account.json.id;
    for (const name of ['one', 'two']) {
      expect((await admin(base, 'POST', '/keys', { body: { name, accountId: id } })).status).to.equal(201);
    }
    const listed = (await admin(base, 'GET', '/accounts')).json.accounts.find((a: { id: string }) => a.id === id);
    expect(listed).to.include({ name: 'Acme', keys: 2, activeKeys: 2 });
    const shown = await admin(base, 'GET', `/accounts/${id}`);
    expect(shown.json.keys.map((k: { name: string }) => k.name)).to.deep.equal(['one', 'two']);
    const replanned = await admin(base, 'PUT', `/accounts/${id}/plan`, { body: { plan: 'premium' } });
    expect(replanned.json.keys.map((k: { plan: string }) => k.plan)).to.deep.equal(['premium', 'premium']);
    const revoked = await admin(base, 'POST', `/accounts/${id}/revoke`);
    expect(revoked.json.keys.every((k: { revokedAt: string | null }) => k.revokedAt !== null)).to.equal(true);
    expect((await admin(base, 'GET', `/accounts/${id}/usage`)).json).to.include({ accountId: id, used: 0 });
  });

  it('answers 404 for an unknown id and 400 naming the plans for an unknown plan', async () => {
    const unknownKey = await admin(base, 'GET', '/keys/key_000000000000');
    expect(unknownKey.status).to.equal(404);
    expect(unknownKey.json.error.message).to.include('No API key with that id');
    expect((await admin(base, 'POST', '/keys/key_000000000000/revoke')).status).to.equal(404);
    expect((await admin(base, 'GET', '/accounts/acc_000000000000')).status).to.equal(404);
    const { id } = await t.newKey('free');
    const badPlan = await admin(base, 'PUT', `/keys/${id}/plan`, { body: { plan: 'platinum' } });
    expect(badPlan.status).to.equal(400);
    expect(badPlan.json.error.message).to.include('platinum').and.include('free, developer, startup, premium, enterprise');
    expect((await admin(base, 'POST', '/keys', { body: { name: 'x', plan: 'platinum' } })).status).to.equal(400);
    expect((await admin(base, 'DELETE', `/keys/${id}`)).status).to.equal(405);
    expect((await admin(base, 'GET', '/nothing')).status).to.equal(404);
  });

  it('refuses a request that names the key itself, and never logs it', async () => {
    const { key } = await t.newKey('free');
    for (const [method, path] of [
      ['GET', `/keys/${key}`],
      ['POST', `/keys/${encodeURIComponent(key)}/revoke`],
      ['GET', `/keys/${key}/usage`],
    ]) {
      const res = await admin(base, method, path);
      expect(res.status, path).to.equal(400);
      expect(res.json.error.message).to.include('not its id');
      expect(JSON.stringify(res.json)).not.to.include(key);
    }
    const asAccount = await admin(base, 'POST', '/keys', { body: { name: 'x', accountId: key } });
    expect(asAccount.status).to.equal(400);
    // The key still works: naming it was refused, not acted on.
    expect((await chainId(t.gw.url, key)).status).to.equal(200);
    expect(logs).to.match(/"listener":"private".*pk_prod_\*\*\*/);
    expect(logs).not.to.include(key);
  });
});

describe('admin API settings', () => {
  it('is off without a token on a store other than the embedded one', async () => {
    const t = await startTestGateway();
    try {
      expect(t.gw.adminUrl).to.equal(undefined);
      expect((await fetch(`${t.gw.url}/admin/v1/keys`)).status).to.equal(404);
    } finally {
      await t.close();
    }
  });

  it('answers on the public listener too when configured, still behind the token', async () => {
    const t = await startTestGateway({ admin: { token: TOKEN, publicListener: true } });
    try {
      expect((await admin(`${t.gw.url}/admin/v1`, 'GET', '/keys', { token: null })).status).to.equal(401);
      const listed = await admin(`${t.gw.url}/admin/v1`, 'GET', '/keys');
      expect(listed.status).to.equal(200);
      expect(listed.json.keys).to.be.an('array');
    } finally {
      await t.close();
    }
  });
});

describe('admin API document (openapi/admin.yaml)', () => {
  const doc = yaml.load(readFileSync(new URL('../../openapi/admin.yaml', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };

  it('is a valid OpenAPI document', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, JSON.stringify(result, null, 1)).to.equal(true);
  });

  it('documents exactly the operations the API serves', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k)).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).to.deep.equal([...ADMIN_OPERATIONS].sort());
  });
});
