/**
 * The edge's floor: the work issue 17 requires of an eth_chainId answer (read the body, hash the key and find it, GCRA,
 * JSON.parse, the gateway's response headers, one request line through the gateway's logger, one histogram
 * observation), written flat in one `node:http` handler with none of the gateway's routing, admission or handler
 * layers, and the answer ended in the gateway's bursts (`endInBurst`). Not a gateway: it answers one key and one
 * method. The gap between it and the gateway is what the gateway's structure costs; the gap between it and the bare
 * server is what the required work costs in Node. Prints `{"url"}`.
 *
 * Given an upstream URL as well, it is the forwarding floor: the same work, with the call sent on under an id of its
 * own through the gateway's HTTP client (as the bare pass-through sends it) and the upstream's result put back under
 * the client's id with the gateway's answer scanner, for any method. The gap between it and the bare pass-through is
 * what forwarding with the edge's required work costs in Node, whatever the structure around it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { endInBurst } from '../src/edge/burstWrites.js';
import { HotHistogram } from '../src/hotMetrics.js';
import { hashKey } from '../src/keys/format.js';
import { gcra, intervalMs } from '../src/limits/gcra.js';
import { bufferedDestination, createLogger, logRequest } from '../src/log.js';
import { LATENCY_BUCKETS } from '../src/metrics.js';
import { Pool } from 'undici';
import { exchangeText } from '../src/rpc/textExchange.js';
import { outcomesOf } from '../src/rpc/upstreamAnswers.js';
import { RawJson } from '../src/rpc/jsonrpc.js';

const [key, chainIdHex, upstreamUrl] = process.argv.slice(2);
const upstream = upstreamUrl ? new URL(upstreamUrl) : undefined;
const pool = upstream && new Pool(upstream.origin, { connections: 64 });
const UPSTREAM_HEADERS = ['content-type', 'application/json'];
const logger = createLogger('info', bufferedDestination('/dev/null'));
const duration = new HotHistogram('floor_request_duration_seconds', 'floor', ['chain', 'network', 'api'], LATENCY_BUCKETS, new Registry()).child('ethereum', 'sepolia', 'rpc');
const keys = new Map([[hashKey(key), { id: 'key_floor', perSecond: 1e9, tat: 0 }]]);
// The CORS headers of an answer that is not a preflight's, as the gateway sends them.
const CORS = [
  ['access-control-allow-origin', '*'],
  ['access-control-expose-headers', 'ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after'],
].flat();

const server = http.createServer((req, res) => {
  const started = process.hrtime.bigint();
  const requestId = randomUUID();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.once('end', () => {
    const found = keys.get(hashKey(String(req.headers['x-api-key'])));
    if (!found) return void res.writeHead(401).end();
    const now = Date.now();
    const outcome = gcra(found.tat, now, intervalMs(found.perSecond), 1);
    found.tat = outcome.tat;
    const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown; method: string; params?: unknown };
    const answer = (result: string) => {
      const body = `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":${result}}`;
      res.writeHead(200, [
        'x-request-id', requestId,
        ...CORS,
        'ratelimit-limit', String(found.perSecond), 'ratelimit-remaining', String(outcome.remaining), 'ratelimit-reset', String(Math.ceil(outcome.resetMs / 1000)),
        'content-type', 'application/json', 'content-length', String(Buffer.byteLength(body)),
      ]);
      endInBurst(res, body);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      duration.observe(seconds);
      logRequest(logger, { requestId, host: req.headers.host, path: req.url, httpMethod: req.method, api: 'rpc', network: 'ethereum-sepolia', status: 200, ms: seconds * 1e3, keyId: found.id, rpcMethods: [call.method], calls: 1 });
    };
    if (!upstream) return answer(`"${chainIdHex}"`);
    const sent = `{"jsonrpc":"2.0","id":0,"method":${JSON.stringify(call.method)},"params":${JSON.stringify(call.params ?? [])}}`;
    exchangeText(pool!, { method: 'POST', path: upstream.pathname, headers: UPSTREAM_HEADERS, body: sent, timeoutMs: 10_000 }).answer.then(
      ({ text }) => {
        // The floor forwards results only: the bench's upstream gives nothing else.
        const [got] = outcomesOf(text, 1) ?? [];
        if (got && 'result' in got && got.result instanceof RawJson) answer(got.result.text);
        else res.writeHead(502).end();
      },
      () => res.writeHead(502).end(),
    );
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })}\n`);
