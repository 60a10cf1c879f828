/** REST through the real gateway against the sandbox's mirror-node stand-in, checked against the mirror node's OpenAPI document. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { validateMirrorResponse } from '../support/mirrorSchema.js';
import { startTestGateway, withLedgerNetwork, type TestGateway } from '../support/gateway.js';

async function closedPortUrl(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return url;
}

describe('REST through the gateway (sandbox mirror node)', () => {
  let gw: TestGateway;
  let base: string;
  let headers: Record<string, string>;

  before(async () => {
    const down = await closedPortUrl();
    gw = await startTestGateway({
      // A network whose operator-configured mirror node is down.
      chains: withLedgerNetwork('previewnet', { chainId: 297, apis: ['rpc', 'rest'], ledger: { mirrorUrl: down, consensus: 'previewnet' } }),
    });
    base = `${gw.gw.url}/hedera-testnet`;
    headers = { 'x-api-key': gw.key };
  });
  after(async () => {
    await gw?.close();
  });

  async function get(url: string, h = headers) {
    const res = await fetch(url, { headers: h });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
  }

  it('serves mirror-node resources in the real wire format', async () => {
    for (const path of ['/api/v1/blocks?limit=1', '/api/v1/accounts/0.0.2', '/api/v1/balances?limit=2', '/api/v1/network/fees', '/api/v1/transactions?limit=1']) {
      const { status, type, body } = await get(`${base}${path}`);
      expect(status, path).to.equal(200);
      expect(type).to.match(/^application\/json/);
      expect(validateMirrorResponse(path, 'get', 200, body), path).to.deep.equal([]);
    }
  });

  it('pages through every balance by following links.next from the base URL the client uses', async () => {
    const all = (await get(`${base}/api/v1/balances?limit=100`)).body.balances.map((a: { account: string }) => a.account);
    expect(all.length).to.be.greaterThan(3);
    const paged: string[] = [];
    let next: string | null = '/api/v1/balances?limit=2';
    while (next) {
      const page: { body: { balances: Array<{ account: string }>; links: { next: string | null } } } = await get(`${base}${next}`);
      paged.push(...page.body.balances.map((a) => a.account));
      next = page.body.links.next;
    }
    expect(paged).to.deep.equal(all);
  });

  it('accepts the key in the path, and the next link works from the path-auth base too', async () => {
    const pathBase = `${gw.gw.url}/hedera-testnet/v1/${gw.key}`;
    const first = await get(`${pathBase}/api/v1/balances?limit=1`, {});
    expect(first.status).to.equal(200);
    const second = await get(`${pathBase}${first.body.links.next}`, {});
    expect(second.status).to.equal(200);
    expect(second.body.balances[0].account).not.to.equal(first.body.balances[0].account);
  });

  it('passes the mirror node\'s own errors through with their status', async () => {
    const invalid = await get(`${base}/api/v1/blocks?limit=abc`);
    expect(invalid.status).to.equal(400);
    expect(validateMirrorResponse('/api/v1/blocks', 'get', 400, invalid.body)).to.deep.equal([]);
    const missing = await get(`${base}/api/v1/accounts/0.0.987654`);
    expect(missing.status).to.equal(404);
    expect(missing.body).to.deep.equal({ _status: { messages: [{ message: 'Not found' }] } });
  });

  it('refuses missing keys (401), other methods (405), and answers 502 for a mirror node that is down, all in _status shape', async () => {
    const noKey = await get(`${base}/api/v1/blocks`, {});
    expect(noKey.status).to.equal(401);
    expect(noKey.body._status.messages[0].message).to.match(/API key missing/);
    const post = await fetch(`${base}/api/v1/blocks`, { method: 'DELETE', headers });
    expect(post.status).to.equal(405);
    expect(((await post.json()) as any)._status.messages[0].message).to.match(/method not allowed/i);
    const down = await get(`${gw.gw.url}/hedera-previewnet/api/v1/blocks`);
    expect(down.status).to.equal(502);
    expect(down.body._status.messages[0].message).to.match(/^Upstream unavailable/);
  });
});
