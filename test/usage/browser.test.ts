import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { API_COLOURS, LIMITED_COLOUR, QUOTA_COLOURS } from '../../src/usage/chart.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { needTool, TOOLS } from '../support/services.js';
import { plansWithTiny, Traffic } from './support.js';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Pixels of each colour in a PNG, decoded by the browser itself (a canvas in a scratch page). */
async function countColours(scratch: Page, png: Buffer, colours: Record<string, string>): Promise<Record<string, number>> {
  return scratch.evaluate(
    async ({ data, colours }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const g = canvas.getContext('2d')!;
      g.drawImage(img, 0, 0);
      const pixels = g.getImageData(0, 0, img.width, img.height).data;
      const wanted = Object.entries(colours).map(([name, hex]) => [name, parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)] as const);
      const counts: Record<string, number> = Object.fromEntries(wanted.map(([name]) => [name, 0]));
      for (let i = 0; i < pixels.length; i += 4) {
        for (const [name, r, gr, b] of wanted) {
          if (Math.abs(pixels[i] - r) <= 2 && Math.abs(pixels[i + 1] - gr) <= 2 && Math.abs(pixels[i + 2] - b) <= 2) counts[name]++;
        }
      }
      return counts;
    },
    { data: png.toString('base64'), colours },
  );
}

describe('usage page in a real browser (Chromium)', () => {
  let t: TestGateway;
  let browser: Browser;

  before(async function () {
    const executablePath = needTool(this, TOOLS.chromium);
    t = await startTestGateway({ plans: plansWithTiny() });
    browser = await chromium.launch({ executablePath, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the traffic just made, without JavaScript: numbers, bars stacked by API with 429s, and the quota bar', async () => {
    const { key, id } = await t.newKey('tiny', []);
    const traffic = new Traffic(t.gw.url, key);
    expect(await traffic.rpc('ethereum-sepolia', 6)).to.equal(200);
    expect(await traffic.rest('hedera-testnet')).to.equal(200);
    expect(await traffic.rest('hedera-testnet')).to.equal(200);
    expect(await traffic.rest('hedera-testnet')).to.equal(200);
    expect(await traffic.rpc('ethereum-sepolia', 25)).to.equal(429);
    expect(await traffic.rpc('ethereum-sepolia', 5)).to.equal(429); // 9 + 5 is over the quota of 12
    // 9 admitted (6 rpc, 3 rest), 2 refused.

    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1100, height: 1000 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const form = await page.goto(`${t.gw.url}/keys/usage`);
    expect(form?.status()).to.equal(200);
    await page.fill('#key', key);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
    expect(page.url()).to.equal(`${t.gw.url}/keys/usage`);
    expect(await page.content()).not.to.include(key);

    expect(await page.textContent('#key-id')).to.equal(id);
    expect(await page.textContent('#quota-used')).to.equal('9');
    expect(await page.textContent('#quota-limit')).to.equal('12');
    expect(await page.textContent('tr[data-api="rpc"][data-network="ethereum-sepolia"] .requests')).to.equal('6');
    expect(await page.textContent('tr[data-api="rpc"][data-network="ethereum-sepolia"] .limited')).to.equal('2');
    expect(await page.textContent('tr[data-api="rest"][data-network="hedera-testnet"] .requests')).to.equal('3');
    expect(await page.textContent('#total-requests')).to.equal('9');
    expect(await page.textContent('#total-limited')).to.equal('2');

    const chart = await page.locator('#hourly-chart').screenshot();
    const quota = await page.locator('#quota-bar').screenshot();
    await context.close();

    const scratch = await (await browser.newContext()).newPage();
    const bars = await countColours(scratch, chart, { rpc: API_COLOURS.rpc, rest: API_COLOURS.rest, limited: LIMITED_COLOUR });
    const fill = await countColours(scratch, quota, { used: QUOTA_COLOURS.used, free: QUOTA_COLOURS.free });
    await scratch.context().close();

    // Bars stack in proportion to their counts (6 rpc, 3 REST, 2 refused): compare drawn areas.
    expect(bars.rest).to.be.greaterThan(100);
    expect(bars.rpc / bars.rest).to.be.closeTo(6 / 3, 0.2);
    expect(bars.limited / bars.rest).to.be.closeTo(2 / 3, 0.15);
    // 9 of 12: three quarters of the quota bar is filled.
    expect(fill.used / (fill.used + fill.free)).to.be.closeTo(9 / 12, 0.02);
  });

  it('says so when the key typed is not recognised', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${t.gw.url}/keys/usage`);
    await page.fill('#key', `pk_prod_${'z'.repeat(32)}`);
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type=submit]')]);
    expect(response.status()).to.equal(401);
    expect(await page.textContent('#form-error')).to.include('not recognised');
    await context.close();
  });
});
