/**
 * What the edge refuses by the thousand (keyless handshakes past their budget, requests routed nowhere, keyless
 * requests past their budget) it refuses cheaply and completely: the socket of a refused handshake is closed at once,
 * a body nobody will read is not drained, and a refusal writes no info line. (The bench's attacks d and e of issue 24.)
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { GatewayError } from '../../src/errors.js';
import type { ApiHandler } from '../../src/edge/types.js';
import { createLogger } from '../../src/log.js';
import { registry } from '../../src/metrics.js';
import { startTestEdge, type TestEdge } from '../support/edge.js';

/** Answers what it is sent; a WebSocket endpoint that authenticates by a `{"key"}` message. */
const echo: ApiHandler = {
  admission: { key: 'optional', bodyLimit: 1 << 20, costOfBody: () => 1 },
  handle: async ({ res }) => void res.end('ok'),
  renderError: (err, { res }) => void res.writeHead(err.http, err.headers).end(err.message),
  socket: {
    pickProtocol: () => '',
    keyIn: ({ json }) => (json as { key?: string } | undefined)?.key,
    costOf: () => 0,
    open: () => {},
  },
};

const HANDSHAKE =
  'GET /hedera-testnet/api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
  'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';

/**
 * A raw request from 127.0.0.2 that never ends its side of the connection: what came back once the gateway closed the
 * connection, or (`firstAnswer`) as soon as anything came back, the connection left open.
 */
function exchange(port: number, request: string | Buffer, firstAnswer = false): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2', allowHalfOpen: true });
    let answer = '';
    socket.on('data', (d) => {
      answer += d;
      if (firstAnswer) resolve(answer);
    });
    socket.on('error', () => {});
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('connect', () => socket.write(request));
    opened.push(socket);
  });
}

const opened: net.Socket[] = [];

async function refusedConnections(): Promise<number> {
  return (await registry.getSingleMetric('gateway_connections_refused_total')!.get()).values[0]?.value ?? 0;
}

describe('refusals a flood repeats', function () {
  // An unfixed edge holds these connections until the client leaves or the request timeout (30 s): fail before that.
  this.timeout(15_000);
  let edge: TestEdge;
  let port: number;
  const lines: string[] = [];
  /** Each test's edge: one keyless request per address in all (the clock stands still), three connections per address. */
  beforeEach(async () => {
    lines.length = 0;
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
    const frozen = Date.now();
    edge = await startTestEdge(
      { rest: echo },
      { overrides: { limits: { keylessPerSecond: 1 }, server: { maxConnectionsPerClient: 3 } }, now: () => frozen, logger: createLogger('info', sink) },
    );
    port = Number(new URL(edge.url).port);
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) s.destroy();
    await edge?.close();
  });

  it('closes the socket of a keyless handshake past its budget at once, so it does not hold a connection of its address', async () => {
    const before = await refusedConnections();
    // The first takes the address's keyless request and stays open, waiting to authenticate.
    expect(await exchange(port, HANDSHAKE, true)).to.match(/^HTTP\/1\.1 101 /);
    // Five more than the address's other two connections: each is answered by the budget and closed by the gateway.
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) answers.push(await exchange(port, HANDSHAKE));
    expect(answers.map((a) => a.split('\r\n')[0])).to.deep.equal(Array(5).fill('HTTP/1.1 429 Too Many Requests'));
    expect(answers.every((a) => a.includes('without a valid API key') && a.includes('retry-after: '))).to.equal(true);
    expect(await refusedConnections(), 'no connection was refused for the address holding too many').to.equal(before);
  });

  it('closes a request routed nowhere after its answer instead of reading the rest of its body', async () => {
    const head = 'POST /nowhere-at-all/rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 8388608\r\n\r\n';
    // 64 KiB of the declared 8 MiB, then nothing: a drain would wait for the rest until the request timeout.
    const answer = await exchange(port, Buffer.concat([Buffer.from(head), Buffer.alloc(64 * 1024, 0x20)]));
    expect(answer).to.match(/^HTTP\/1\.1 404 /).and.match(/\r\nconnection: close\r\n/i);
  });

  it('writes no info line for a keyless request past its address\'s budget; other refusals keep theirs', async () => {
    const post = () => fetch(`${edge.url}/hedera-testnet/api/v1/blocks`, { method: 'POST', body: '{}' });
    expect((await post()).status).to.equal(200);
    expect((await post()).status).to.equal(429);
    // An unknown key costs its address a keyless request, refused by the spent budget: quiet too.
    expect((await fetch(`${edge.url}/hedera-testnet/api/v1/blocks`, { headers: { 'x-api-key': 'pk_prod_nobody' } })).status).to.equal(429);
    expect((await fetch(`${edge.url}/nowhere-at-all/rpc`)).status).to.equal(404);
    await new Promise((r) => setImmediate(r));
    const logged = lines.map((l) => JSON.parse(l) as { status: number; level: string }).map((l) => `${l.level} ${l.status}`);
    expect(logged).to.deep.equal(['info 200', 'info 404']);
  });
});

describe('GatewayError', () => {
  it('is an answer without a stack: no frames are captured when one is made', () => {
    expect(new GatewayError('NOT_FOUND').stack).not.to.include('\n    at ');
    expect(new Error('a fault').stack, 'other errors keep theirs').to.include('\n    at ');
  });
});
