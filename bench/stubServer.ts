/**
 * An upstream stand-in in its own process, so its CPU time is not charged to the gateway it serves:
 * `constant <json> [chainIdHex]` answers every request with that body, and eth_chainId (the gateway's start-up check)
 * with the chain id; `stall <fraction> <stallMs> <json> [chainIdHex]` does the same but holds that fraction of the
 * requests, at random, for stallMs first; `window <fraction> <stallMs> <phaseMs> <json> [chainIdHex]` holds the
 * requests that arrive in that fraction of every second (from phaseMs on) instead; `mirror [delayMs] [warmUpRequests]` is the counting mirror-node stub, answering after delayMs (and first warming its code up on that many requests of its own);
 * `proxy <url>` passes every body to that upstream and its answer back, through the gateway's own HTTP client and
 * nothing else (the ceiling of any forwarding in Node). Prints `{"url": ...}` once listening.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { exchangeText } from '../src/rpc/textExchange.js';
import { startMirrorStub } from './mirrorStub.js';

const [kind, ...args] = process.argv.slice(2);
let url: string;
if (kind === 'mirror') {
  url = (await startMirrorStub(Number(args[0] ?? 0), Number(args[1] ?? 0))).url;
} else if (kind === 'proxy') {
  const upstream = new URL(args[0]);
  const pool = new Pool(upstream.origin, { connections: 64 });
  const headers = ['content-type', 'application/json'];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => {
      exchangeText(pool, { method: 'POST', path: upstream.pathname, headers, body: Buffer.concat(chunks).toString('utf8'), timeoutMs: 10_000 }).answer.then(
        ({ text }) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text),
        () => res.writeHead(502).end(),
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
} else {
  const [fraction, stallMs] = kind === 'stall' || kind === 'window' ? [Number(args.shift()), Number(args.shift())] : [0, 0];
  const phaseMs = kind === 'window' ? Number(args.shift()) : 0;
  const stalls = () => (kind === 'window' ? (Date.now() - phaseMs + 1_000_000) % 1_000 < fraction * 1_000 : Math.random() < fraction);
  const [body = '', chainId = '0x1'] = args;
  const chainIdBody = `{"jsonrpc":"2.0","id":0,"result":"${chainId}"}`;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => {
      const answer = Buffer.concat(chunks).includes('"eth_chainId"') ? chainIdBody : body;
      const send = () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer);
      if (fraction > 0 && stalls()) setTimeout(send, stallMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}
process.stdout.write(`${JSON.stringify({ url })}\n`);
