/**
 * docs/tls-proxy.md's set-up, tested: a TLS-terminating reverse proxy in front of the gateway, passing the Host header,
 * adding X-Forwarded-For, and forwarding WebSocket upgrades; the gateway with server.clientIpHeader naming that header.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Agent } from 'undici';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

/** The proxy's job in a few lines: what nginx's proxy_pass with the Upgrade headers of the guide does. */
function startTlsProxy(tls: { key: Buffer; cert: Buffer }, target: URL): Promise<https.Server> {
  const forwarded = (req: http.IncomingMessage) => {
    const prior = req.headers['x-forwarded-for'];
    return { ...req.headers, 'x-forwarded-for': `${prior ? `${prior}, ` : ''}${req.socket.remoteAddress}`, 'x-forwarded-proto': 'https' };
  };
  const server = https.createServer(tls, (req, res) => {
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: forwarded(req) }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  server.on('upgrade', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const upstream = net.connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`, ...Object.entries(forwarded(req)).map(([k, v]) => `${k}: ${v}`)];
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('behind a TLS-terminating reverse proxy (docs/tls-proxy.md)', function () {
  this.timeout(120_000);
  let dir: string;
  let tls: { key: Buffer; cert: Buffer };
  let t: TestGateway;
  let proxy: https.Server;
  let base: string;

  before(async function () {
    if (spawnSync('openssl', ['version']).status !== 0) {
      if (process.env.CI === 'true') throw new Error('openssl is needed to make the test certificate; CI requires it');
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'tls-proxy-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-days', '1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
    tls = { key: readFileSync(key), cert: readFileSync(cert) };
    t = await startTestGateway({ server: { clientIpHeader: 'x-forwarded-for' } });
    proxy = await startTlsProxy(tls, new URL(t.gw.url));
    base = `https://localhost:${(proxy.address() as net.AddressInfo).port}`;
  });
  after(async () => {
    proxy?.closeAllConnections();
    await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers JSON-RPC over HTTPS through the proxy', async () => {
    const dispatcher = new Agent({ connect: { ca: tls.cert } });
    try {
      const res = await fetch(`${base}/ethereum-sepolia/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.key },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        // @ts-expect-error undici's dispatcher option, which Node's fetch takes
        dispatcher,
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ jsonrpc: '2.0', id: 1, result: '0xaa36a7' });
    } finally {
      await dispatcher.close();
    }
  });

  it('upgrades a WebSocket (wss://) through the proxy and answers over it', async () => {
    const ws = new WebSocket(`${base.replace(/^https/, 'wss')}/ethereum-sepolia/rpc`, { ca: tls.cert, headers: { 'x-api-key': t.key } });
    try {
      const answer = await new Promise<unknown>((resolve, reject) => {
        ws.once('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] })));
        ws.once('message', (data) => resolve(JSON.parse(String(data))));
        ws.once('error', reject);
      });
      expect(answer).to.deep.equal({ jsonrpc: '2.0', id: 7, result: '0xaa36a7' });
    } finally {
      ws.close();
    }
  });
});
