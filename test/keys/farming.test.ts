/**
 * Key creation that cannot be farmed: the key page driven in a loop meets the per-client budget, the global budget
 * and the per-account cap at their configured counts, with 429 pages and Retry-After; forwarded headers count only
 * when the operator names one; a closed page creates nothing; creations are counted in a metric.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { CreationBudget } from '../../src/keys/creationBudget.js';
import { createKeysPage } from '../../src/keys/page.js';
import type { KeyStore } from '../../src/keys/store.js';
import { registry } from '../../src/metrics.js';
import { sharedMemoryStore } from '../support/keyStores.js';
import { openForm, pageOptions, post, serveHandler } from './pageServer.js';

type Served = Awaited<ReturnType<typeof serveHandler>>;

/** One creation as a browser makes it: open the form, submit it. */
async function create(server: Served, fields: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const { csrf, cookie } = await openForm(server.url);
  const res = await post(server.url, { csrf, name: 'farm', network: 'testnet', email: '', ...fields }, { cookie, ...headers });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), html: await res.text() };
}

async function created(outcome: string): Promise<number> {
  const metric = await registry.getSingleMetric('gateway_key_creations_total')!.get();
  return metric.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

describe('key creation budgets on the key page', () => {
  let store: KeyStore;
  const now = Date.now();
  before(async () => {
    store = await sharedMemoryStore();
  });

  it('refuses a client from its configured count on, with a 429 page and Retry-After; forwarded headers are not trusted by default', async () => {
    const budget = new CreationBudget({ windowMs: 3_600_000, perClient: 3, perWindow: 100, now: () => now });
    const server = await serveHandler(createKeysPage(pageOptions(store, { budget })));
    try {
      const before = await created('created');
      const statuses = [];
      // A farm rotating X-Forwarded-For gains nothing when no proxy header is configured.
      for (let i = 0; i < 5; i++) statuses.push((await create(server, {}, { 'x-forwarded-for': `203.0.113.${i}` })).status);
      expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
      const refused = await create(server);
      expect(refused.retryAfter).to.equal('3600');
      expect(refused.html).to.include('Too many keys created recently').and.include('from your address');
      expect(await created('created')).to.equal(before + 3);
      expect(await created('refused_client')).to.be.greaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('takes the client address from the configured proxy header, and stops everyone at the global budget', async () => {
    const budget = new CreationBudget({ windowMs: 3_600_000, perClient: 1, perWindow: 3, now: () => now });
    const server = await serveHandler(createKeysPage(pageOptions(store, { budget, clientIpHeader: 'x-forwarded-for' })));
    try {
      const from = (ip: string) => ({ 'x-forwarded-for': `198.51.100.7, ${ip}` });
      expect((await create(server, {}, from('192.0.2.1'))).status).to.equal(200);
      expect((await create(server, {}, from('192.0.2.1'))).status).to.equal(429);
      expect((await create(server, {}, from('192.0.2.2'))).status).to.equal(200);
      expect((await create(server, {}, from('192.0.2.3'))).status).to.equal(200);
      const global = await create(server, {}, from('192.0.2.4'));
      expect(global.status).to.equal(429);
      expect(global.html).to.include('on this gateway');
      expect(global.retryAfter).to.equal('3600');
    } finally {
      await server.close();
    }
  });

  it('caps the active keys of one email address at keys.maxPerAccount', async () => {
    const server = await serveHandler(createKeysPage(pageOptions(store)));
    try {
      const email = `farm-${randomBytes(4).toString('hex')}@example.com`;
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await create(server, { email })).status);
      expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(200));
      expect(statuses[10]).to.equal(429);
      const again = await create(server, { email: email.toUpperCase() });
      expect(again.status).to.equal(429);
      expect(again.html).to.include('revoke one');
    } finally {
      await server.close();
    }
  });

  it('creates nothing when self-service is closed', async () => {
    const server = await serveHandler(createKeysPage(pageOptions(store, { selfService: 'closed' })));
    try {
      const form = await fetch(`${server.url}/keys/new?name=x`);
      expect(form.status).to.equal(403);
      expect(await form.text()).to.include('ask its operator for a key');
      const res = await post(server.url, { name: 'x', network: 'testnet' });
      expect(res.status).to.equal(403);
    } finally {
      await server.close();
    }
  });
});
