/**
 * Operations endpoints are private: `/metrics` and the readiness detail answer on the private listener (loopback, its
 * own port); the public listener says only up or ready, and opens the rest only to the ops token when one is set.
 */
import { expect } from 'chai';
import type { TestGateway } from '../support/gateway.js';
import { startOpsGateway } from './support.js';

const TOKEN = 'ops-token-0123456789abcdef';

describe('operations endpoints: public and private listeners', function () {
  this.timeout(120_000);
  let t: TestGateway;
  let withToken: TestGateway;
  before(async () => {
    t = await startOpsGateway();
    withToken = await startOpsGateway({ ops: { token: TOKEN } });
  });
  after(async () => {
    await t?.close();
    await withToken?.close();
  });

  it('keeps /metrics off the public listener by default and serves it on the private one', async () => {
    const pub = await fetch(`${t.gw.url}/metrics`);
    expect(pub.status).to.equal(404);
    expect(await pub.text()).to.not.include('gateway_requests_total');
    expect(new URL(t.gw.privateUrl!).hostname).to.equal('127.0.0.1');
    expect(new URL(t.gw.privateUrl!).port).to.not.equal(new URL(t.gw.url).port);
    const priv = await fetch(`${t.gw.privateUrl}/metrics`);
    expect(priv.status).to.equal(200);
    expect(await priv.text()).to.include('gateway_requests_total');
  });

  it('says only up or ready on the public listener, with the detail on the private one', async () => {
    expect(await (await fetch(`${t.gw.url}/healthz`)).json()).to.deep.equal({ status: 'ok' });
    const pub = (await (await fetch(`${t.gw.url}/readyz`)).json()) as Record<string, unknown>;
    expect(pub).to.deep.equal({ status: 'ready' });
    const priv = (await (await fetch(`${t.gw.privateUrl}/readyz`)).json()) as { checks: Record<string, string> };
    expect(priv.checks).to.include({ keyStore: 'ok', limiter: 'ok' });
  });

  it('opens /metrics and the readiness detail on the public listener to the ops token only', async () => {
    const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    expect((await fetch(`${withToken.gw.url}/metrics`)).status).to.equal(404);
    expect((await fetch(`${withToken.gw.url}/metrics`, bearer('wrong-token-0123456789'))).status).to.equal(401);
    const metrics = await fetch(`${withToken.gw.url}/metrics`, bearer(TOKEN));
    expect(metrics.status).to.equal(200);
    expect(await metrics.text()).to.include('gateway_requests_total');
    const ready = (await (await fetch(`${withToken.gw.url}/readyz`, bearer(TOKEN))).json()) as { checks?: object };
    expect(ready.checks).to.be.an('object');
    expect(await (await fetch(`${withToken.gw.url}/readyz`)).json()).to.deep.equal({ status: 'ready' });
  });
});
