import { expect } from 'chai';
import { monthOf } from '../../src/limits/calendar.js';
import type { UsageReport } from '../../src/usage/report.js';
import { inOneMonth } from '../support/calendar.js';
import { postgresSchema } from '../support/keyStores.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { needService } from '../support/services.js';
import { plansWithTiny, Traffic } from './support.js';

const series = (r: UsageReport, api: string, network: string) => r.series.find((s) => s.api === api && s.network === network);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('usage for key owners: GET /v1/<key>/usage', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway({ plans: plansWithTiny() });
  });
  after(() => t?.close());

  it('answers with any of the three key methods, on the bare domain and on a network', () => inOneMonth(async () => {
    const { key, id } = await t.newKey('developer', []);
    const answers = await Promise.all([
      fetch(`${t.gw.url}/usage`, { headers: { 'x-api-key': key } }),
      fetch(`${t.gw.url}/usage`, { headers: { authorization: `Bearer ${key}` } }),
      fetch(`${t.gw.url}/v1/${key}/usage`),
      fetch(`${t.gw.url}/hedera-testnet/v1/${key}/usage`),
      fetch(`${t.gw.url}/usage`, { headers: { 'x-api-key': key, host: `app.localhost:${t.gw.port}` } }),
    ]);
    for (const res of answers) {
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const report = (await res.json()) as UsageReport;
      expect(report).to.include({ keyId: id, plan: 'developer', month: monthOf(Date.now()) });
      expect(JSON.stringify(report)).not.to.include(key);
    }
  }));

  it('counts this month against the quota and the last 48 hours by API and network, with 429s apart; reading it costs nothing', () => inOneMonth(async () => {
    const { key } = await t.newKey('tiny', []);
    const traffic = new Traffic(t.gw.url, key);
    expect(await traffic.rpc('ethereum-sepolia', 6)).to.equal(200);
    expect(await traffic.rpc('ethereum-sepolia', 25)).to.equal(429); // more than one second's burst: refused by the rate
    expect(await traffic.rest('hedera-testnet')).to.equal(200);
    expect(await traffic.rest('hedera-testnet')).to.equal(200);
    expect(await traffic.rpc('ethereum', 4)).to.equal(200); // 12 of 12: the quota is spent
    expect(await traffic.rpc('ethereum')).to.equal(429);
    expect(await traffic.rest('hedera-testnet')).to.equal(429);

    const res = await fetch(`${t.gw.url}/usage`, { headers: { 'x-api-key': key } });
    expect(res.status).to.equal(200);
    const r = (await res.json()) as UsageReport;
    expect(r.quota).to.deep.include({ used: 12, limit: 12, remaining: 0 });
    expect(r.hours).to.have.length(48);
    expect(Date.parse(r.hours[47])).to.be.at.most(Date.now()).and.above(Date.now() - 3_600_000);
    expect(sum(series(r, 'rpc', 'ethereum-sepolia')!.requests)).to.equal(traffic.admitted.get('rpc ethereum-sepolia'));
    expect(sum(series(r, 'rpc', 'ethereum-sepolia')!.limited)).to.equal(1);
    expect(sum(series(r, 'rpc', 'ethereum')!.requests)).to.equal(4);
    expect(sum(series(r, 'rpc', 'ethereum')!.limited)).to.equal(1);
    expect(sum(series(r, 'rest', 'hedera-testnet')!.requests)).to.equal(2);
    expect(sum(series(r, 'rest', 'hedera-testnet')!.limited)).to.equal(1);
    expect(sum(r.totals.requests)).to.equal(12);
    expect(sum(r.totals.limited)).to.equal(3);
    // The report itself was not charged: the spent key still reads it, and nothing was added.
    const again = (await (await fetch(`${t.gw.url}/v1/${key}/usage`)).json()) as UsageReport;
    expect(again.quota.used).to.equal(12);
    expect(sum(again.totals.limited)).to.equal(3);
  }));

  it('refuses a missing or unknown key with 401 and other methods with 405', async () => {
    expect((await fetch(`${t.gw.url}/usage`)).status).to.equal(401);
    const unknown = await fetch(`${t.gw.url}/v1/pk_prod_${'x'.repeat(32)}/usage`);
    expect(unknown.status).to.equal(401);
    expect((await fetch(`${t.gw.url}/usage`, { method: 'POST', headers: { 'x-api-key': t.key } })).status).to.equal(405);
  });
});

describe('usage counts survive restarts, and two instances writing at once lose none (Postgres)', () => {
  let schema: Awaited<ReturnType<typeof postgresSchema>> | undefined;
  before(async function () {
    await needService(this, 'Postgres', 5432);
    schema = await postgresSchema();
  });
  after(() => schema?.drop());

  it('counts every request sent through two gateways, read back by a third started later', async () => {
    // Frequent flushes, so the two instances write the same rows while traffic still arrives.
    const start = () => startTestGateway({ keys: { databaseUrl: schema!.url, demoKey: false }, limits: { quotaFlushMs: 20 } });
    const [a, b] = [await start(), await start()];
    let key: { key: string; id: string };
    const sent = { a: 0, b: 0 };
    try {
      key = await a.newKey('enterprise', []);
      const through = (g: TestGateway, n: number) => Array.from({ length: n }, (_, i) => new Traffic(g.gw.url, key.key).rpc(i % 2 ? 'ethereum' : 'ethereum-sepolia', 3));
      for (let round = 0; round < 5; round++) {
        await Promise.all([...through(a, 8), ...through(b, 8)]);
        sent.a += 8 * 3;
        sent.b += 8 * 3;
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const c = await start();
    try {
      const r = (await (await fetch(`${c.gw.url}/usage`, { headers: { 'x-api-key': key.key } })).json()) as UsageReport;
      expect(r.quota.used).to.equal(sent.a + sent.b);
      expect(sum(series(r, 'rpc', 'ethereum')!.requests) + sum(series(r, 'rpc', 'ethereum-sepolia')!.requests)).to.equal(sent.a + sent.b);
    } finally {
      await c.close();
    }
  });
});
