/**
 * The edge's WebSocket gate bounds what a socket may cost before and after it authenticates: a message-size limit on
 * every socket, a cap on sockets that have not authenticated, and a timeout for them.
 */
import net from 'node:net';
import { expect } from 'chai';
import WebSocket from 'ws';
import type { ApiHandler } from '../../src/edge/types.js';
import { startTestEdge, type TestEdge } from '../support/edge.js';

/** An endpoint that authenticates by a `{"key"}` message and echoes what it is sent. */
const echo: ApiHandler = {
  admission: { key: 'required', cost: 1 },
  handle: async () => {},
  renderError: () => {},
  socket: {
    pickProtocol: () => '',
    keyIn: ({ json }) => (json as { key?: string } | undefined)?.key,
    costOf: () => 0,
    open(session) {
      session.onMessage(({ text }) => session.socket.send(text));
      session.onRefused((_m, err) => session.close(4000 + err.http, err.message));
    },
  },
};

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

/** An edge whose sockets wait `wsAuthTimeoutMs` to authenticate; at most two may wait at once. */
const gate = (wsAuthTimeoutMs: number) => startTestEdge({ rest: echo }, { overrides: { server: { wsMaxPayloadBytes: 1024, wsMaxUnauthenticated: 2, wsAuthTimeoutMs } } });

describe('WebSocket gate at the edge', () => {
  let edge: TestEdge;
  let url: string;
  let key: string;
  before(async () => {
    // No socket here times out: a waiting socket stays waiting for as long as a test needs it to.
    edge = await gate(600_000);
    url = `${edge.url.replace('http', 'ws')}/hedera-testnet/api/v1/stream`;
    key = (await edge.addKey('enterprise')).raw;
  });
  after(() => edge.close());

  it('closes a socket that sends a message over wsMaxPayloadBytes with 1009', async () => {
    const ws = await open(url, { 'x-api-key': key });
    ws.send('x'.repeat(2048));
    expect(await closed(ws)).to.equal(1009);
  });

  it('closes a socket that does not authenticate in time with 4408, and keeps one that did', async () => {
    // Long enough for the authenticating socket's one message however busy the machine; the idle one waits it out.
    const short = await gate(2_000);
    try {
      const shortUrl = `${short.url.replace('http', 'ws')}/hedera-testnet/api/v1/stream`;
      const idle = await open(shortUrl);
      const authed = await open(shortUrl);
      authed.send(JSON.stringify({ key }));
      await new Promise((resolve) => authed.once('message', resolve));
      expect(await closed(idle)).to.equal(4408);
      expect(authed.readyState).to.equal(WebSocket.OPEN);
      authed.close();
      await closed(authed);
    } finally {
      await short.close();
    }
  });

  it('refuses handshakes past the cap of sockets waiting to authenticate, and lets an authenticated one through', async () => {
    const waiting = [await open(url), await open(url)];
    const refused = await open(url).catch((e: Error) => e);
    expect(String(refused)).to.include('HTTP 503');
    // A key in the handshake does not wait: it is not held by the cap.
    const keyed = await open(url, { 'x-api-key': key });
    keyed.close();
    for (const ws of waiting) ws.terminate();
  });
});

/** A handshake's outcome: the open socket, or the refusal's status and Retry-After. */
function attempt(url: string, headers: Record<string, string> = {}): Promise<WebSocket | { status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
    ws.once('error', reject);
  });
}

/** Handshakes from `address` until one is refused or `tries` are open. */
async function fill(url: string, address: string, tries: number) {
  const opened: WebSocket[] = [];
  const refusals: Array<{ status: number; retryAfter?: string }> = [];
  for (let i = 0; i < tries; i++) {
    const outcome = await attempt(url, { 'x-forwarded-for': address });
    if (outcome instanceof WebSocket) opened.push(outcome);
    else refusals.push(outcome);
  }
  return { opened, refusals };
}

/** A handshake that succeeds once the gateway has seen a socket of the address close (which it learns a moment later). */
async function openOnceFreed(url: string, address: string): Promise<WebSocket> {
  for (let i = 0; i < 100; i++) {
    const outcome = await attempt(url, { 'x-forwarded-for': address });
    if (outcome instanceof WebSocket) return outcome;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no slot was freed for ${address}`);
}

const authenticated = async (ws: WebSocket, key: string) => {
  ws.send(JSON.stringify({ key }));
  return String(await new Promise((resolve) => ws.once('message', resolve)));
};

describe('WebSocket slots waiting to authenticate, per client address', () => {
  /** Eight slots in all, two per address (told apart by X-Forwarded-For, as a proxy in front would set it). */
  const perClientGate = () =>
    startTestEdge(
      { rest: echo },
      { overrides: { server: { clientIpHeader: 'x-forwarded-for', wsMaxUnauthenticated: 8, wsMaxUnauthenticatedPerClient: 2, wsAuthTimeoutMs: 600_000 } } },
    );
  let edge: TestEdge;
  let url: string;
  let key: string;
  beforeEach(async () => {
    edge = await perClientGate();
    url = `${edge.url.replace('http', 'ws')}/hedera-testnet/api/v1/stream`;
    key = (await edge.addKey('enterprise')).raw;
  });
  afterEach(() => edge.close());

  it('keeps one address from holding the slots others need to authenticate in their first message', async () => {
    const attacker = await fill(url, '198.51.100.1', 8);
    expect(attacker.opened).to.have.length(2);
    expect(attacker.refusals).to.have.length(6);
    expect(attacker.refusals.every((r) => r.status === 429 && r.retryAfter === '600')).to.equal(true);

    const other = await attempt(url, { 'x-forwarded-for': '198.51.100.2' });
    expect(other).to.be.instanceOf(WebSocket);
    expect(await authenticated(other as WebSocket, key)).to.equal(JSON.stringify({ key }));
    const keyed = await attempt(url, { 'x-forwarded-for': '198.51.100.1', 'x-api-key': key });
    expect(keyed, 'a key in the handshake takes no slot').to.be.instanceOf(WebSocket);

    // The address gets a slot back when one of its sockets authenticates, and when one closes.
    await authenticated(attacker.opened[0], key);
    const afterAuth = await attempt(url, { 'x-forwarded-for': '198.51.100.1' });
    expect(afterAuth).to.be.instanceOf(WebSocket);
    expect(await attempt(url, { 'x-forwarded-for': '198.51.100.1' })).to.deep.include({ status: 429 });
    attacker.opened[1].terminate();
    const afterClose = await openOnceFreed(url, '198.51.100.1');
    for (const ws of [...attacker.opened, other as WebSocket, keyed as WebSocket, afterAuth as WebSocket, afterClose]) ws.terminate();
  });

  it('keeps the last quarter of the slots for addresses that have none waiting', async () => {
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) expect((await fill(url, address, 2)).opened).to.have.length(2);
    // Six of eight are taken: an address with one waiting may not take a seventh, a new address may.
    const fourth = await fill(url, '203.0.113.4', 2);
    expect(fourth.opened).to.have.length(1);
    expect(fourth.refusals).to.deep.equal([{ status: 429, retryAfter: '600' }]);
    expect((await fill(url, '203.0.113.5', 1)).opened).to.have.length(1);
    expect((await fill(url, '203.0.113.6', 1)).refusals, 'all eight are taken').to.deep.equal([{ status: 503, retryAfter: undefined }]);
  });
});

describe('WebSocket handshakes without a key', () => {
  it('are charged to the address\'s keyless budget and refused with 429 once it is spent; a keyed one is not', async () => {
    const frozen = Date.now();
    const edge = await startTestEdge({ rest: echo }, { overrides: { limits: { keylessPerSecond: 2 } }, now: () => frozen });
    try {
      const url = `${edge.url.replace('http', 'ws')}/hedera-testnet/api/v1/stream`;
      const { raw } = await edge.addKey('enterprise');
      const outcomes = [await attempt(url), await attempt(url), await attempt(url)];
      expect(outcomes.slice(0, 2).every((o) => o instanceof WebSocket)).to.equal(true);
      expect(outcomes[2]).to.deep.include({ status: 429 });
      expect(Number((outcomes[2] as { retryAfter: string }).retryAfter)).to.be.greaterThan(0);
      const keyed = await attempt(url, { 'x-api-key': raw });
      expect(keyed).to.be.instanceOf(WebSocket);
      for (const o of [...outcomes, keyed]) if (o instanceof WebSocket) o.terminate();
    } finally {
      await edge.close();
    }
  });
});

describe('WebSocket handshakes the edge refuses', () => {
  it('survive clients that reset the connection before the refusal is written', async () => {
    const edge = await startTestEdge({ rest: echo });
    try {
      const { port } = new URL(edge.url);
      const handshake =
        'GET /hedera-testnet/api/v1/stream HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nX-API-KEY: pk_not_a_key\r\n\r\n';
      // The bad key is verified asynchronously, so the reset lands before the 401 is written: a write to a reset
      // socket that nothing listens to for errors would crash the process.
      await Promise.all(
        Array.from({ length: 50 }, () =>
          new Promise<void>((resolve) => {
            const socket = net.connect(Number(port), '127.0.0.1', () => {
              socket.write(handshake);
              setImmediate(() => socket.resetAndDestroy());
            });
            socket.on('error', () => {});
            socket.on('close', () => resolve());
          }),
        ),
      );
      const { raw } = await edge.addKey('enterprise');
      const ws = await open(`${edge.url.replace('http', 'ws')}/hedera-testnet/api/v1/stream`, { 'x-api-key': raw });
      expect(ws.readyState).to.equal(WebSocket.OPEN);
      ws.terminate();
    } finally {
      await edge.close();
    }
  });
});

describe('keys nobody issued', () => {
  it('cost their sender\'s address a keyless request, on HTTP and on a handshake: guessing keys meets the budget', async () => {
    const frozen = Date.now();
    const answering: ApiHandler = {
      ...echo,
      handle: async ({ res }) => void res.end('ok'),
      renderError: (err, { res }) => void res.writeHead(err.http, err.headers).end(err.message),
    };
    const edge = await startTestEdge({ rest: answering }, { overrides: { limits: { keylessPerSecond: 2 } }, now: () => frozen });
    try {
      const guess = (n: number) => ({ 'x-api-key': `pk_prod_guess${n}` });
      const http = async (n: number) => (await fetch(`${edge.url}/hedera-testnet/api/v1/blocks`, { headers: guess(n) })).status;
      expect([await http(1), await http(2), await http(3)]).to.deep.equal([401, 401, 429]);
      const handshake = await attempt(`${edge.url.replace('http', 'ws')}/hedera-testnet/api/v1/stream`, guess(4));
      expect(handshake).to.deep.include({ status: 429 });
      const { raw } = await edge.addKey('enterprise');
      expect((await fetch(`${edge.url}/hedera-testnet/api/v1/blocks`, { headers: { 'x-api-key': raw } })).status).to.equal(200);
    } finally {
      await edge.close();
    }
  });
});
