import { expect } from 'chai';
import { hashKey } from '../../src/keys/format.js';
import { createKeysPage } from '../../src/keys/page.js';
import type { KeyStore } from '../../src/keys/store.js';
import { MIRROR, openForm, pageOptions, post, serveHandler } from './pageServer.js';
import { sharedMemoryStore } from '../support/keyStores.js';

describe('key-creation page over HTTP', () => {
  let store: KeyStore;
  let server: Awaited<ReturnType<typeof serveHandler>>;
  before(async () => {
    store = await sharedMemoryStore();
    server = await serveHandler(createKeysPage(pageOptions(store)));
  });
  after(async () => {
    await server?.close();
  });

  it('prefills the form with the project name and network, escaped', async () => {
    const { res, html, csrf, cookie } = await openForm(server.url, `?name=${encodeURIComponent('<b>dapp</b>')}&network=mainnet`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(html).to.include('value="&#60;b&#62;dapp&#60;/b&#62;"').and.not.to.include('<b>dapp');
    expect(html).to.include('<option value="mainnet" selected>');
    expect(csrf).to.have.length.greaterThan(20);
    expect(cookie).to.equal(`keys_csrf=${csrf}`);
    expect(res.headers.get('set-cookie')).to.include('SameSite=Strict').and.include('HttpOnly');
    expect((await openForm(server.url, '?name=x&network=testnet')).html).to.include('<option value="testnet" selected>');
  });

  it('keeps one form token per browser, so forms open in two tabs both submit', async () => {
    const first = await openForm(server.url);
    const res = await fetch(`${server.url}/keys/new?name=tab2&network=testnet`, { headers: { cookie: first.cookie } });
    expect(/name="csrf" value="([^"]+)"/.exec(await res.text())?.[1]).to.equal(first.csrf);
  });

  it('answers a bad network with a clear 400 page', async () => {
    const res = await fetch(`${server.url}/keys/new?name=x&network=moonnet`);
    expect(res.status).to.equal(400);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(await res.text()).to.include('network must be mainnet or testnet');
  });

  it('creates a free key on submit and shows it once beside the environment snippet', async () => {
    const { csrf, cookie } = await openForm(server.url);
    const res = await post(server.url, { csrf, name: 'my-dapp', network: 'testnet', email: '' }, { cookie, origin: server.url });
    expect(res.status).to.equal(200);
    expect(res.headers.get('location')).to.equal(null);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const html = await res.text();
    const key = /HGRAPH_API_KEY=(pk_prod_[A-Za-z0-9_-]+)/.exec(html)?.[1];
    expect(key, 'key in the snippet').to.be.a('string');
    expect(html).to.include(`HEDERA_MIRROR_URL=${MIRROR.testnet}\nHGRAPH_API_KEY=${key}\nHEDERA_RPC_URL=http://localhost:8080/hedera-testnet/rpc`);
    // What the free key includes, the ledger relay's plans among it.
    expect(html).to.include('A free key includes 10 requests per second and 100,000 a month');
    expect(html).to.include('The Hedera JSON-RPC relay is included in the Developer, Startup, Premium and Enterprise plans.');
    expect(html).to.include('id="copy"');
    const stored = await store.findByHash(hashKey(key!));
    expect(stored).to.include({ plan: 'free', network: 'testnet', name: 'my-dapp', accountName: 'my-dapp', revokedAt: null });
  });

  it('puts the mainnet REST URL in the snippet for a mainnet key', async () => {
    const { csrf, cookie } = await openForm(server.url);
    const html = await (await post(server.url, { csrf, name: 'main', network: 'mainnet' }, { cookie })).text();
    expect(html).to.include(`HEDERA_MIRROR_URL=${MIRROR.mainnet}\n`);
  });

  it('refuses cross-site posts: no token, a token without its cookie, or a foreign Origin', async () => {
    const before = (await store.list()).length;
    const { csrf, cookie } = await openForm(server.url);
    const refusals = [
      await post(server.url, { name: 'evil', network: 'testnet' }, { cookie }),
      await post(server.url, { csrf, name: 'evil', network: 'testnet' }),
      await post(server.url, { csrf: 'forged', name: 'evil', network: 'testnet' }, { cookie }),
      await post(server.url, { csrf, name: 'evil', network: 'testnet' }, { cookie, origin: 'https://evil.example' }),
    ];
    for (const res of refusals) {
      expect(res.status).to.equal(403);
      expect(await res.text()).to.include('Form submission refused');
    }
    expect((await store.list()).length).to.equal(before);
  });

  it('refuses a bad network or a missing name on submit with 400', async () => {
    const { csrf, cookie } = await openForm(server.url);
    expect((await post(server.url, { csrf, name: 'x', network: 'moonnet' }, { cookie })).status).to.equal(400);
    expect((await post(server.url, { csrf, name: '  ', network: 'testnet' }, { cookie })).status).to.equal(400);
  });

  it('answers other paths with 404 and other methods with 405', async () => {
    expect((await fetch(`${server.url}/keys/old`)).status).to.equal(404);
    expect((await fetch(`${server.url}/keys/new`, { method: 'DELETE' })).status).to.equal(405);
  });
});
