import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { startGateway, type Gateway } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import type { KeyStore } from '../../src/keys/store.js';
import { sharedMemoryStore } from '../support/keyStores.js';
import { needTool, TOOLS } from '../support/services.js';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

describe('key page in a real browser (Chromium)', () => {
  let store: KeyStore;
  let gateway: Gateway;
  let browser: Browser;

  before(async function () {
    const chromiumPath = needTool(this, TOOLS.chromium);
    store = await sharedMemoryStore();
    const config = loadConfig({ env: {}, overrides: { server: { port: 0 }, keys: { dataDir: 'memory://', demoKey: false }, log: { level: 'silent' } } });
    gateway = await startGateway(config, { keyStore: store });
    browser = await chromium.launch({ executablePath: chromiumPath, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('creates a key without JavaScript, and the key then answers eth_chainId', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const res = await page.goto(`${gateway.url}/keys/new?name=browser-dapp&network=testnet`);
    expect(res?.status()).to.equal(200);
    expect(await page.inputValue('#name')).to.equal('browser-dapp');
    expect(await page.inputValue('#network')).to.equal('testnet');
    await page.fill('#email', 'dev@example.com');
    await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
    // The key is in the page only: the URL stays the form's, with no key in it.
    expect(page.url()).not.to.include('pk_prod_');
    const snippet = await page.textContent('#snippet');
    const env = Object.fromEntries((snippet ?? '').trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(env.HEDERA_MIRROR_URL).to.equal(gateway.urls.mirror('testnet')).and.match(/\/api\/v1$/);
    expect(env.HGRAPH_API_KEY).to.match(/^pk_prod_[A-Za-z0-9_-]{32}$/);
    expect(await page.isVisible('#copy')).to.equal(false);
    await context.close();

    const rpc = await fetch(`${gateway.url}/ethereum-sepolia/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': env.HGRAPH_API_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    expect(await rpc.json()).to.deep.equal({ jsonrpc: '2.0', id: 1, result: '0xaa36a7' });
    // The snippet as a user pastes it: the mirror URL and the key, nothing else.
    const rest = await fetch(`${env.HEDERA_MIRROR_URL}/network/exchangerate`, { headers: { authorization: `Bearer ${env.HGRAPH_API_KEY}` } });
    expect(rest.status).to.equal(200);
    expect(await rest.json()).to.have.property('current_rate');
  });

  it('offers a working copy button where JavaScript runs', async () => {
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    await page.goto(`${gateway.url}/keys/new?name=copy-test&network=mainnet`);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
    await page.click('#copy');
    await page.waitForFunction(() => document.getElementById('copied')?.textContent !== '');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).to.equal(await page.textContent('#snippet'));
    expect(copied).to.include(`HEDERA_MIRROR_URL=${gateway.urls.mirror('mainnet')}`);
    await context.close();
  });

  it('refuses a form posted from another site', async () => {
    const target = `${gateway.url}/keys/new`;
    const evil = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form method="post" action="${target}"><input name="name" value="evil"><input name="network" value="testnet"></form>
<script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      // The victim has visited the key page, so the browser holds its form cookie.
      await page.goto(`${target}?name=mine&network=testnet`);
      const before = (await store.list()).length;
      const refused = page.waitForResponse((r) => r.url() === target && r.request().method() === 'POST');
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      expect((await refused).status()).to.equal(403);
      expect(await page.textContent('body')).to.include('Form submission refused');
      expect((await store.list()).length).to.equal(before);
    } finally {
      await context.close();
      evil.closeAllConnections();
      await new Promise((resolve) => evil.close(resolve));
    }
  });
});
