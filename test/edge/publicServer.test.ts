/**
 * The public listener bounds what one client can hold: connections per remote address (the extra ones answered 429 and
 * closed before any request on them is handled), and how long headers may take (408). Another address, and /healthz,
 * are served meanwhile. (Finding 9 of issue 24.)
 */
import net from 'node:net';
import { expect } from 'chai';
import { createOps } from '../../src/edge/ops.js';
import { registry } from '../../src/metrics.js';
import { startTestEdge, type TestEdge } from '../support/edge.js';

/** A connection from `localAddress` that sends part of a request's headers and then nothing more. */
function slowHeaders(port: number, localAddress: string) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  let answer = '';
  socket.on('data', (d) => (answer += d));
  socket.on('error', () => {});
  const done = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
  return { socket, done };
}

async function refusedConnections(): Promise<number> {
  return (await registry.getSingleMetric('gateway_connections_refused_total')!.get()).values[0]?.value ?? 0;
}

describe('the public listener bounds each client', function () {
  // An unfixed listener lets slow headers wait 60 s, checked every 30 s: fail before that.
  this.timeout(15_000);
  let edge: TestEdge;
  before(async () => {
    const ops = createOps({ registry, checks: () => [], isDraining: () => false });
    edge = await startTestEdge({ ops: ops.publicHandler }, { overrides: { server: { maxConnectionsPerClient: 4, headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 } } });
  });
  after(() => edge.close());

  it('answers connections past the per-address bound with 429 and closes them; those under it get 408 when their headers stall', async () => {
    const before = await refusedConnections();
    const port = Number(new URL(edge.url).port);
    const flood = Array.from({ length: 10 }, () => slowHeaders(port, '127.0.0.2'));
    const answers = await Promise.all(flood.map((c) => c.done));
    const refused = answers.filter((a) => a.startsWith('HTTP/1.1 429 '));
    expect(refused).to.have.length(6);
    expect(refused[0]).to.include('retry-after: 1').and.include('Too many open connections from your address');
    expect(await refusedConnections()).to.equal(before + 6);
    // The four under the bound were held until their headers timed out.
    expect(answers.filter((a) => a.startsWith('HTTP/1.1 408 '))).to.have.length(4);
  });

  it('serves /healthz to another address while one holds all its connections', async () => {
    const port = Number(new URL(edge.url).port);
    const held = Array.from({ length: 4 }, () => slowHeaders(port, '127.0.0.3'));
    const extra = slowHeaders(port, '127.0.0.3');
    expect(await extra.done).to.match(/^HTTP\/1\.1 429 /);
    const health = await fetch(`${edge.url}/healthz`);
    expect(health.status).to.equal(200);
    for (const c of held) c.socket.destroy();
  });
});

describe('the public listener behind a trusted proxy', () => {
  it('does not bound connections by address, since every connection is the proxy\'s', async () => {
    const ops = createOps({ registry, checks: () => [], isDraining: () => false });
    const edge = await startTestEdge({ ops: ops.publicHandler }, { overrides: { server: { maxConnectionsPerClient: 2, clientIpHeader: 'x-forwarded-for', headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 } } });
    try {
      const port = Number(new URL(edge.url).port);
      const held = Array.from({ length: 4 }, () => slowHeaders(port, '127.0.0.4'));
      const answers = await Promise.all(held.map((c) => c.done));
      expect(answers.every((a) => a.startsWith('HTTP/1.1 408 '))).to.equal(true);
    } finally {
      await edge.close();
    }
  });
});
