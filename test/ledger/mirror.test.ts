import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayError } from '../../src/errors.js';
import { MirrorClient } from '../../src/ledger/mirror.js';
import { call, testRelay } from './helpers.js';

type Handler = (n: number, url: string, res: import('node:http').ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; count: () => number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  let connections = 0;
  const server: Server = createServer((req, res) => handler(n++, req.url ?? '', res));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => n,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

describe('mirror-node client', () => {
  const clients: MirrorClient[] = [];
  const servers: Array<{ close: () => Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  function client(url: string, opts: Partial<ConstructorParameters<typeof MirrorClient>[0]> = {}) {
    const c = new MirrorClient({ url, timeoutMs: 1_000, retries: 2, totalMs: 5_000, ...opts });
    clients.push(c);
    return c;
  }

  it('retries 503 and 429 with back-off and returns the eventual answer', async () => {
    const s = await serve((n, _url, res) => (n === 0 ? json(res, 503, {}) : n === 1 ? json(res, 429, {}, { 'retry-after': '0' }) : json(res, 200, { ok: true })));
    servers.push(s);
    const c = client(s.url);
    expect(await c.get('/api/v1/blocks')).to.deep.equal({ ok: true });
    expect(s.count()).to.equal(3);
    expect(c.stats).to.include({ requests: 3, retries: 2, failures: 0 });
  });

  it('gives up after the configured retries with a clear MIRROR_UNAVAILABLE error', async () => {
    const s = await serve((_n, _url, res) => json(res, 500, {}));
    servers.push(s);
    const c = client(s.url, { retries: 1 });
    const err = await c.get('/api/v1/blocks/5').catch((e) => e);
    expect(err).to.be.instanceOf(GatewayError);
    expect(err.errorName).to.equal('MIRROR_UNAVAILABLE');
    // What failed is for the operator's log; the client gets the catalogue's words.
    expect(err.message).to.equal('Mirror node unavailable');
    expect(err.internal).to.include('/api/v1/blocks/5').and.include('HTTP 500');
    expect(s.count()).to.equal(2);
  });

  it('a mirror node that never answers is a timeout error bounded by the total time, not a hang', async () => {
    const s = await serve(() => undefined);
    servers.push(s);
    const c = client(s.url, { timeoutMs: 100, retries: 10, totalMs: 400 });
    const err = await c.get('/api/v1/blocks').catch((e) => e);
    expect(err.errorName).to.equal('MIRROR_UNAVAILABLE');
    expect(err.internal).to.include('no answer within');
    expect(c.stats.requests).to.be.lessThan(11);
  });

  it('404 is null; 400 is INVALID_PARAMS with the mirror node’s message; the mirror API key is sent as x-api-key', async () => {
    let seenKey: string | undefined;
    const server = createServer((req, res) => {
      seenKey = req.headers['x-api-key'] as string | undefined;
      if (req.url === '/base/api/v1/missing') json(res, 404, { _status: { messages: [{ message: 'Not found' }] } });
      else json(res, 400, { _status: { messages: [{ message: 'Invalid parameter: topic0' }] } });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) });
    const c = client(`http://127.0.0.1:${(server.address() as AddressInfo).port}/base/`, { apiKey: 'mirror-secret' });
    expect(await c.get('/api/v1/missing')).to.equal(null);
    const err = await c.get('/api/v1/contracts/results/logs?topic0=x').catch((e) => e);
    expect(err.errorName).to.equal('INVALID_PARAMS');
    expect(err.message).to.include('Invalid parameter: topic0');
    expect(seenKey).to.equal('mirror-secret');
  });

  it('keeps connections alive across requests', async () => {
    const s = await serve((_n, _url, res) => json(res, 200, { ok: 1 }));
    servers.push(s);
    const c = client(s.url);
    for (let i = 0; i < 20; i++) await c.get(`/api/v1/blocks/${i}`);
    // sequential requests reuse sockets instead of opening one each
    expect(s.connections()).to.be.at.most(2);
  });

  it('keeps integers beyond 2^53 exact where asked (account balances)', async () => {
    const s = await serve((_n, _url, res) => res.writeHead(200).end('{"balance":{"balance":12345678901234567890}}'));
    servers.push(s);
    const c = client(s.url);
    const body = await c.get<any>('/api/v1/accounts/0x1', { exactNumbers: true });
    expect(body.balance.balance).to.equal(12345678901234567890n);
  });

  it('through the relay, a failing mirror node is a JSON-RPC error with code -32020', async () => {
    const s = await serve((_n, _url, res) => json(res, 502, {}));
    servers.push(s);
    const relay = testRelay(296, { mirrorUrl: s.url }, { mirrorRetries: 1, mirrorTotalMs: 2_000 });
    try {
      const outcome = await call(relay, 'eth_blockNumber');
      expect(outcome).to.have.nested.property('error.code', -32020);
      expect((outcome as any).error.message).to.include('Mirror node unavailable');
    } finally {
      await relay.close();
    }
  });
});
