/**
 * The REST proxy against a real HTTP upstream that records what reaches it; here we can make the upstream answer
 * absolute links, hang, or vanish. The sandbox's mirror-node stand-in is exercised through the gateway in gateway.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createRestProxy } from '../../src/rest/proxy.js';
import { startTestEdge, type TestEdge } from '../support/edge.js';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
}

async function startUpstream(seen: Seen[]): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url?.startsWith('/api/v1/hang')) return; // never answers
    if (req.url?.startsWith('/api/v1/accounts/0.0.404')) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end('{"_status":{"messages":[{"message":"Not found"}]}}');
      return;
    }
    if (req.url?.startsWith('/api/v1/absolute')) {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', etag: 'W/"abc"' });
      res.end(`{"items":[{"big":123456789012345678901234567890}],"links":{"next":"${self}/api/v1/absolute?limit=1&timestamp=lt:1.2"}}`);
      return;
    }
    if (req.url?.startsWith('/api/v1/text')) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('plain text');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(`{"accounts":[{"account":"0.0.2","balance":{"balance":5000000000000000001}}],"links":{"next":"/api/v1/accounts?limit=1&account.id=gt:0.0.2"}}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('REST proxy (standalone edge, real upstream)', () => {
  const seen: Seen[] = [];
  let upstream: { url: string; server: http.Server };
  let edge: TestEdge;
  let down: string;

  before(async () => {
    upstream = await startUpstream(seen);
    // A port that was just free and is now closed stands for a mirror node that is down.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    down = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const rest = createRestProxy({
      timeoutMs: 300,
      upstreams: async (network) => ({
        rpc: [],
        mirrorUrl: network.networkName === 'mainnet' ? down : upstream.url,
        mirrorApiKey: 'operator-secret',
      }),
    });
    edge = await startTestEdge({ rest });
    KEY = (await edge.addKey('enterprise')).raw;
    headers['x-api-key'] = KEY;
  });
  after(async () => {
    await edge.close();
    upstream.server.closeAllConnections();
    await new Promise<void>((resolve) => upstream.server.close(() => resolve()));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  let KEY = '';
  const headers: Record<string, string> = {};

  it('forwards the path and query string intact and returns the body byte for byte', async () => {
    const res = await fetch(`${edge.url}/hedera-testnet/api/v1/accounts?limit=1&account.id=gte:0.0.2&order=asc`, { headers });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(await res.text()).to.equal(
      '{"accounts":[{"account":"0.0.2","balance":{"balance":5000000000000000001}}],"links":{"next":"/api/v1/accounts?limit=1&account.id=gt:0.0.2"}}',
    );
    expect(seen[0].url).to.equal('/api/v1/accounts?limit=1&account.id=gte:0.0.2&order=asc');
  });

  it('never passes client credentials upstream, and adds the operator credential', async () => {
    await fetch(`${edge.url}/hedera-testnet/v1/${KEY}/api/v1/accounts`, { headers: { cookie: 'a=b' } });
    await fetch(`${edge.url}/hedera-testnet/api/v1/accounts`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(seen).to.have.length(2);
    for (const { url, headers: h } of seen) {
      expect(url).to.equal('/api/v1/accounts');
      expect(h['x-api-key']).to.equal('operator-secret');
      expect(h.authorization).to.equal(undefined);
      expect(h.cookie).to.equal(undefined);
      expect(JSON.stringify(h)).not.to.contain(KEY);
    }
  });

  it('rewrites absolute upstream links onto the gateway, keeping the path key only for path auth', async () => {
    const viaHeader = await (await fetch(`${edge.url}/hedera-testnet/api/v1/absolute?limit=1`, { headers })).text();
    expect(viaHeader).to.contain(`"next":"${edge.url}/hedera-testnet/api/v1/absolute?limit=1&timestamp=lt:1.2"`);
    expect(viaHeader).not.to.contain(upstream.url);
    expect(viaHeader).to.contain('123456789012345678901234567890');
    expect(viaHeader).not.to.contain('pk_test');

    const res = await fetch(`${edge.url}/hedera-testnet/v1/${KEY}/api/v1/absolute?limit=1`);
    const body = (await res.json()) as { links: { next: string } };
    expect(body.links.next).to.equal(`${edge.url}/hedera-testnet/v1/${KEY}/api/v1/absolute?limit=1&timestamp=lt:1.2`);
    expect(res.headers.get('etag')).to.equal('W/"abc"');
    const second = await fetch(body.links.next);
    expect(second.status).to.equal(200);
  });

  it('passes upstream errors and non-JSON bodies through unchanged', async () => {
    const missing = await fetch(`${edge.url}/hedera-testnet/api/v1/accounts/0.0.404`, { headers });
    expect(missing.status).to.equal(404);
    expect(await missing.json()).to.deep.equal({ _status: { messages: [{ message: 'Not found' }] } });
    const text = await fetch(`${edge.url}/hedera-testnet/api/v1/text`, { headers });
    expect(text.headers.get('content-type')).to.equal('text/plain');
    expect(await text.text()).to.equal('plain text');
  });

  it('answers HEAD and refuses other methods with 405 in the _status shape', async () => {
    const head = await fetch(`${edge.url}/hedera-testnet/api/v1/accounts`, { method: 'HEAD', headers });
    expect(head.status).to.equal(200);
    const post = await fetch(`${edge.url}/hedera-testnet/api/v1/accounts`, { method: 'POST', headers, body: '{}' });
    expect(post.status).to.equal(405);
    expect(post.headers.get('allow')).to.equal('GET, HEAD');
    const body = (await post.json()) as { _status: { messages: Array<{ message: string }> } };
    expect(body._status.messages[0].message).to.match(/method not allowed/i);
    expect(seen).to.have.length(1);
  });

  it('refuses unauthenticated requests with 401 without reaching the upstream', async () => {
    const res = await fetch(`${edge.url}/hedera-testnet/api/v1/accounts`);
    expect(res.status).to.equal(401);
    const body = (await res.json()) as { _status: { messages: Array<{ message: string }> } };
    expect(body._status.messages[0].message).to.match(/API key missing/);
    expect(seen).to.have.length(0);
  });

  it('answers 502 when the mirror node is down and 504 when it is too slow', async () => {
    const down502 = await fetch(`${edge.url}/hedera/api/v1/accounts`, { headers });
    expect(down502.status).to.equal(502);
    const body = (await down502.json()) as { _status: { messages: Array<{ message: string }> } };
    expect(body._status.messages[0].message).to.match(/^Upstream unavailable/);
    expect(body._status.messages[0].message).not.to.contain('127.0.0.1');

    const slow = await fetch(`${edge.url}/hedera-testnet/api/v1/hang`, { headers });
    expect(slow.status).to.equal(504);
    expect(await slow.json()).to.deep.equal({ _status: { messages: [{ message: 'Upstream timed out' }] } });
  });
});
