/**
 * Refusals a flood repeats (a spent keyless or key budget, a connection past its address's bound, a keyless handshake
 * past its budget) are held before they are written, their connections unread, so a client retrying in a loop makes
 * one attempt per held connection per delay instead of thousands a second; past the tarpit's bound they are answered
 * at once. (The bench's attacks c to h of issue 24, whose loops cost the gateway a connection each.)
 */
import net from 'node:net';
import { expect } from 'chai';
import type { ApiHandler } from '../../src/edge/types.js';
import { Tarpit } from '../../src/edge/tarpit.js';
import { registry } from '../../src/metrics.js';
import { startTestEdge, type TestEdge } from '../support/edge.js';

const echo: ApiHandler = {
  admission: { key: 'optional', bodyLimit: 1 << 20, costOfBody: () => 1 },
  handle: async ({ res }) => void res.end('ok'),
  renderError: (err, { res }) => void res.writeHead(err.http, err.headers).end(err.message),
  socket: { pickProtocol: () => '', keyIn: () => undefined, costOf: () => 0, open: () => {} },
};

const HANDSHAKE =
  'GET /hedera-testnet/api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
  'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';
const POST = 'POST /hedera-testnet/api/v1/blocks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}';

async function held(): Promise<number> {
  return (await registry.getSingleMetric('gateway_refusals_held_total')?.get())?.values[0]?.value ?? 0;
}

/** A raw connection from 127.0.0.2 sending `request`: what it got, as it stands (`now`) and once the gateway closed it. */
function connect(port: number, request: string) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' });
  let answer = '';
  socket.on('data', (d) => (answer += d));
  socket.on('error', () => {});
  socket.on('connect', () => socket.write(request));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  return { socket, now: () => answer, closed };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10));
}

describe('the tarpit', function () {
  this.timeout(15_000);

  describe('Tarpit', () => {
    it('answers each kind after its delay, in order; at once when full or when its delay is 0; everything on flush', async () => {
      const answered: number[] = [];
      const pit = new Tarpit({ budget: 20, waitingSocket: 0, connection: 60 }, 3);
      pit.hold('connection', () => answered.push(1));
      pit.hold('budget', () => answered.push(2));
      pit.hold('budget', () => answered.push(3));
      pit.hold('budget', () => answered.push(4));
      pit.hold('waitingSocket', () => answered.push(5));
      expect(answered, 'the fourth was past the bound, the fifth\'s kind is not held').to.deep.equal([4, 5]);
      expect(pit.held).to.equal(3);
      await until(async () => answered.length === 5);
      expect(answered).to.deep.equal([4, 5, 2, 3, 1]);
      const later = new Tarpit({ budget: 60_000, waitingSocket: 60_000, connection: 60_000 }, 10);
      later.hold('budget', () => answered.push(6));
      later.hold('connection', () => answered.push(7));
      later.flush();
      expect(answered.slice(-2)).to.deep.equal([6, 7]);
      expect(later.held).to.equal(0);
    });
  });

  describe('at the edge', () => {
    let edge: TestEdge | undefined;
    const sockets: net.Socket[] = [];
    /** One keyless request per address in all (the clock stands still), three connections per address, refusals held a minute. */
    beforeEach(async () => {
      const frozen = Date.now();
      edge = await startTestEdge(
        { rest: echo },
        { overrides: { limits: { keylessPerSecond: 1 }, server: { maxConnectionsPerClient: 3, refusalDelayMs: 60_000 } }, now: () => frozen },
      );
    });
    afterEach(async () => {
      await edge?.close();
      for (const s of sockets.splice(0)) s.destroy();
    });

    const port = () => Number(new URL(edge!.url).port);

    it('holds a keyless request past its budget unanswered, and answers it 429 when released', async () => {
      const first = connect(port(), POST.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
      sockets.push(first.socket);
      expect(await first.closed, 'the address\'s one request').to.match(/^HTTP\/1\.1 200 /);
      const before = await held();
      const second = connect(port(), POST);
      sockets.push(second.socket);
      await until(async () => (await held()) === before + 1);
      expect(second.now(), 'nothing written while held').to.equal('');
      await edge!.close();
      edge = undefined;
      expect(await second.closed).to.match(/^HTTP\/1\.1 429 /).and.include('retry-after: ');
    });

    it('holds a connection past its address\'s bound and a keyless handshake past its budget', async () => {
      // The address's one keyless request: a handshake that stays open, waiting to authenticate.
      const open = connect(port(), HANDSHAKE);
      sockets.push(open.socket);
      await until(async () => open.now().startsWith('HTTP/1.1 101 '));
      const before = await held();
      const refusedHandshake = connect(port(), HANDSHAKE);
      const third = connect(port(), 'GET /hedera-testnet/api/v1/blocks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      sockets.push(refusedHandshake.socket, third.socket);
      await new Promise((r) => third.socket.once('connect', r));
      await until(async () => (await held()) === before + 1);
      // The fourth connection of the address is past its bound of three.
      const fourth = connect(port(), 'GET /hedera-testnet/api/v1/blocks HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      sockets.push(fourth.socket);
      await until(async () => (await held()) === before + 2);
      expect([refusedHandshake.now(), fourth.now()], 'nothing written while held').to.deep.equal(['', '']);
      await edge!.close();
      edge = undefined;
      expect(await refusedHandshake.closed).to.match(/^HTTP\/1\.1 429 /).and.include('without a valid API key');
      expect(await fourth.closed).to.match(/^HTTP\/1\.1 429 /).and.include('Too many open connections');
    });
  });
});
