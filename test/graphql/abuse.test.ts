/**
 * Abuse bounds of the GraphQL paths (issue 24), on a minimal edge in front of a recording upstream: queries priced by
 * their cost, fragment bombs refused without blocking the process, subscription starts with numeric ids billed,
 * guarded and counted, running subscriptions capped per key across connections, sockets counted from the handshake,
 * and a client that reads nothing closed once its unsent bytes pass the bound.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import WebSocket, { WebSocketServer } from 'ws';
import { defaultPlans } from '../../src/config/catalogue.js';
import { configSchema } from '../../src/config/schema.js';
import { createOps } from '../../src/edge/ops.js';
import { createGraphqlProxy } from '../../src/graphql/proxy.js';
import { registry } from '../../src/metrics.js';
import { startTestEdge, type TestEdge } from '../support/edge.js';
import { postGraphql } from './clients.js';

const MAX_BUFFERED = 256 * 1024;
const SUB = 'subscription { transaction(limit: 1) { consensus_timestamp } }';
/** What the upstream answers a `flood` subscription with, again and again until the gateway closes it. */
const FLOOD_CHUNK = 'x'.repeat(64 * 1024);
const FLOOD_MAX = 1_000;

/** An upstream that answers every POST and acknowledges every socket, recording what reached it. */
interface Recorder {
  url: string;
  posts: string[];
  /** Client messages that reached the upstream's sockets, parsed. */
  seen: any[];
  flood: { sent: number; closed: boolean };
  /** Upstream sockets closed so far. */
  closes(): number;
  close(): Promise<void>;
}

async function startRecorder(): Promise<Recorder> {
  const posts: string[] = [];
  const seen: any[] = [];
  const flood = { sent: 0, closed: false };
  let closes = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      posts.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
    });
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    ws.on('close', () => closes++);
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data));
      seen.push(msg);
      if (msg.type === 'connection_init') ws.send(JSON.stringify({ type: 'connection_ack' }));
      if (msg.type === 'subscribe' && String(msg.payload?.query).includes('flood')) {
        ws.on('close', () => (flood.closed = true));
        const push = () => {
          if (ws.readyState !== WebSocket.OPEN || flood.sent >= FLOOD_MAX) return;
          ws.send(JSON.stringify({ id: msg.id, type: 'next', payload: { data: { flood: FLOOD_CHUNK } } }));
          flood.sent++;
          setTimeout(push, 2);
        };
        push();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/graphql`,
    posts,
    seen,
    flood,
    closes: () => closes,
    async close() {
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A raw GraphQL WebSocket: what the gateway sends it, and how it closed. */
class Raw {
  readonly messages: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      this.wake();
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => {
        resolve({ code, reason: String(reason) });
        this.wake();
      }),
    );
  }

  static async open(url: string, protocol: string, headers?: Record<string, string>): Promise<Raw> {
    const raw = new Raw(new WebSocket(url.replace(/^http/, 'ws'), protocol, { headers }));
    await new Promise((resolve, reject) => {
      raw.ws.once('open', resolve);
      raw.ws.once('error', reject);
    });
    return raw;
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  /** The first message matching `test`; rejects if the socket closes first. */
  async next(test: (m: any) => boolean): Promise<any> {
    for (;;) {
      const found = this.messages.find(test);
      if (found) return found;
      if (this.ws.readyState === WebSocket.CLOSED) throw new Error(`closed before a matching message: ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** Waits until `test` holds, checking as the event loop turns; fails after `tries` checks. */
async function until(test: () => boolean, what: string, tries = 500): Promise<void> {
  for (let i = 0; !test(); i++) {
    if (i >= tries) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Fragment F<i> spreads F<i+1> twice, each inside a field: 2^n fields from about 1 KB at n = 30. */
function fragmentBomb(n: number): string {
  const fragments = Array.from({ length: n }, (_, i) => `fragment F${i} on T { ...F${i + 1} ...F${i + 1} }`);
  return `{ transaction(limit: 1) { ...F0 } } ${fragments.join(' ')} fragment F${n} on T { consensus_timestamp }`;
}

describe('GraphQL abuse bounds: cost, numeric ids, per-key caps, buffers', function () {
  let upstream: Recorder;
  let edge: TestEdge;
  let url: string;
  let PREMIUM: { raw: string; id: string };

  before(async () => {
    upstream = await startRecorder();
    const graphql = createGraphqlProxy({
      timeoutMs: 2_000,
      maxPayloadBytes: 1024 * 1024,
      server: configSchema.shape.server.parse({ wsMaxBufferedBytes: MAX_BUFFERED }),
      upstreams: async () => ({ rpc: [], graphqlUrl: upstream.url }),
    });
    const plans = defaultPlans();
    const ops = createOps({ registry, checks: () => [], isDraining: () => false });
    edge = await startTestEdge(
      { graphql, ops: ops.publicHandler },
      {
        overrides: {
          // The free plan's guards and caps, without its per-second budget getting in the way.
          plans: { ...plans, free: { ...plans.free, requestsPerSecond: 10_000 } },
          // Open sockets read the key's plan again this often.
          keys: { cacheTtlMs: 200 },
          chains: { hedera: { kind: 'ledger', displayName: 'Hedera', networks: { mainnet: { chainId: 295, apis: ['rpc', 'graphql'] } } } },
        },
      },
    );
    url = `${edge.url}/hedera/v1/graphql`;
    PREMIUM = await edge.addKey('premium');
  });
  after(async () => {
    await edge.close();
    await upstream.close();
  });

  const charged = (id: string) => edge.charged.get(id) ?? 0;
  /** What reaches the upstream's sockets from now on. */
  const since = () => {
    const from = upstream.seen.length;
    return () => upstream.seen.slice(from);
  };

  it('refuses a 30-level fragment bomb by its cost, charged one request, while /healthz is answered', async () => {
    const free = await edge.addKey('free');
    const posts = upstream.posts.length;
    const [bomb, health] = await Promise.all([
      postGraphql(url, { query: fragmentBomb(30) }, { 'x-api-key': free.raw }),
      fetch(`${edge.url}/healthz`).then((r) => r.status),
    ]);
    expect(bomb.status).to.equal(400);
    expect(bomb.body.errors[0].extensions.code).to.equal('QUERY_TOO_COSTLY');
    expect(health).to.equal(200);
    expect(charged(free.id)).to.equal(1);
    expect(upstream.posts.length).to.equal(posts);
  });

  it('meters refused queries like any request: 30 bombs from a free key cost it 30 requests', async () => {
    const free = await edge.addKey('free');
    for (let i = 0; i < 30; i++) {
      const refused = await postGraphql(url, { query: fragmentBomb(30) }, { 'x-api-key': free.raw });
      expect(refused.body.errors[0].extensions.code).to.equal('QUERY_TOO_COSTLY');
    }
    expect(charged(free.id)).to.equal(30);
  });

  it('charges a query by its cost: 40 aliases of transaction(limit: 1000) are 41 requests; the free plan refuses 25', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `t${i}: transaction(limit: 1000) { consensus_timestamp }`).join(' ')} }`;
    const before = charged(PREMIUM.id);
    const answered = await postGraphql(url, { query: aliases(40) }, { 'x-api-key': PREMIUM.raw });
    expect(answered.status).to.equal(200);
    expect(charged(PREMIUM.id) - before).to.equal(41);

    const free = await edge.addKey('free');
    const posts = upstream.posts.length;
    const refused = await postGraphql(url, { query: aliases(25) }, { 'x-api-key': free.raw });
    expect(refused.status).to.equal(400);
    expect(refused.body.errors[0].extensions.code).to.equal('QUERY_TOO_COSTLY');
    expect(refused.body.errors[0].message).to.contain('cost 25025; your plan allows 20000');
    expect(charged(free.id)).to.equal(1);
    expect(upstream.posts.length).to.equal(posts);
  });

  it('bills, guards and counts legacy starts with numeric ids, echoing the ids as sent', async () => {
    const free = await edge.addKey('free');
    const seen = since();
    const conn = await Raw.open(`${edge.url}/hedera/v1/${free.raw}/graphql`, 'graphql-ws');
    conn.send({ type: 'connection_init', payload: {} });
    await conn.next((m) => m.type === 'connection_ack');

    conn.send({ id: 1, type: 'start', payload: { query: SUB } });
    await until(() => seen().some((m) => m.type === 'start' && m.id === 1), 'start 1 reaches the upstream');
    expect(charged(free.id)).to.equal(1);

    const deep = `subscription { transaction ${'{ a '.repeat(8)}${'}'.repeat(8)} }`; // depth 9; free allows 6
    conn.send({ id: 2, type: 'start', payload: { query: deep } });
    const tooDeep = await conn.next((m) => m.type === 'error' && m.id === 2);
    expect(tooDeep.payload.extensions.code).to.equal('QUERY_TOO_DEEP');
    conn.send({ id: 3, type: 'start', payload: { query: `${SUB} ${'#'.repeat(9_000)}` } });
    expect((await conn.next((m) => m.type === 'error' && m.id === 3)).payload.extensions.code).to.equal('QUERY_TOO_LARGE');

    // "1" is not 1: a second running subscription, the free plan's last.
    conn.send({ id: '1', type: 'start', payload: { query: SUB } });
    await until(() => seen().some((m) => m.type === 'start' && m.id === '1'), 'start "1" reaches the upstream');
    conn.send({ id: 4, type: 'start', payload: { query: SUB } });
    const capped = await conn.next((m) => m.type === 'error' && m.id === 4);
    expect(capped.payload.message).to.contain('running GraphQL subscriptions');
    conn.send({ id: 1, type: 'stop' });
    conn.send({ id: 5, type: 'start', payload: { query: SUB } });
    await until(() => seen().some((m) => m.type === 'start' && m.id === 5), 'start 5 reaches the upstream once 1 stopped');

    expect(seen().filter((m) => [2, 3, 4].includes(m.id))).to.deep.equal([]);
    // Every start was charged, refused or not: 1, 2, 3, "1", 4, 5.
    expect(charged(free.id)).to.equal(6);
    conn.ws.close();
  });

  it('charges a flood of numeric-id starts one request each and lets only the plan\'s running subscriptions through', async () => {
    const free = await edge.addKey('free');
    const conn = await Raw.open(`${edge.url}/hedera/v1/${free.raw}/graphql`, 'graphql-ws');
    conn.send({ type: 'connection_init', payload: {} });
    await conn.next((m) => m.type === 'connection_ack');
    const marker = `flood${Date.now()}`;
    for (let id = 0; id < 200; id++) conn.send({ id, type: 'start', payload: { query: `subscription ${marker} { transaction(limit: 1) { consensus_timestamp } }` } });
    await until(() => conn.messages.filter((m) => m.type === 'error').length === 198, '198 starts refused');
    expect(charged(free.id)).to.equal(200);
    expect(upstream.seen.filter((m) => m.type === 'start' && String(m.payload.query).includes(marker))).to.have.length(2);
    conn.ws.close();
  });

  it('caps running subscriptions per key across its connections, and releases them on complete and on close', async () => {
    const free = await edge.addKey('free');
    const seen = since();
    const modern = await Raw.open(url, 'graphql-transport-ws', { 'x-api-key': free.raw });
    const legacy = await Raw.open(url, 'graphql-ws', { 'x-api-key': free.raw });
    for (const conn of [modern, legacy]) {
      conn.send({ type: 'connection_init', payload: {} });
      await conn.next((m) => m.type === 'connection_ack');
    }
    modern.send({ id: 'a', type: 'subscribe', payload: { query: SUB } });
    legacy.send({ id: 1, type: 'start', payload: { query: SUB } });
    await until(() => seen().some((m) => m.id === 1 && m.type === 'start') && seen().some((m) => m.id === 'a'), 'a and 1 reach the upstream');
    modern.send({ id: 'b', type: 'subscribe', payload: { query: SUB } });
    const refused = await modern.next((m) => m.type === 'error' && m.id === 'b');
    expect(refused.payload[0].extensions.code).to.equal('RATE_LIMITED');

    modern.send({ id: 'a', type: 'complete' });
    await until(() => seen().some((m) => m.id === 'a' && m.type === 'complete'), 'a completes');
    legacy.send({ id: 2, type: 'start', payload: { query: SUB } });
    await until(() => seen().some((m) => m.id === 2 && m.type === 'start'), 'start 2 reaches the upstream after a completed');
    const closes = upstream.closes();
    legacy.ws.close();
    await until(() => upstream.closes() > closes, 'the closed socket ends its upstream');
    modern.send({ id: 'c', type: 'subscribe', payload: { query: SUB } });
    modern.send({ id: 'd', type: 'subscribe', payload: { query: SUB } });
    await until(() => ['c', 'd'].every((id) => seen().some((m) => m.id === id)), 'c and d reach the upstream after the other socket closed');
    modern.ws.close();
  });

  it('counts sockets authenticated at the handshake against the key before their connection_init', async () => {
    const free = await edge.addKey('free');
    const waiting = [await Raw.open(url, 'graphql-transport-ws', { 'x-api-key': free.raw }), await Raw.open(url, 'graphql-ws', { 'x-api-key': free.raw })];
    const third = await Raw.open(url, 'graphql-transport-ws', { 'x-api-key': free.raw });
    third.send({ type: 'connection_init', payload: {} });
    const outcome = await Promise.race([third.closed, third.next((m) => m.type === 'connection_ack').then(() => 'acknowledged')]);
    expect(outcome).to.deep.equal({ code: 4429, reason: 'Limit exceeded: open subscription connections for this key' });
    for (const w of waiting) w.ws.close();
  });

  it('a downgrade reaches open sockets: the newest connections close and the newest subscriptions end past the new cap', async () => {
    const dev = await edge.addKey('developer');
    const header = { 'x-api-key': dev.raw };
    const modern = await Raw.open(url, 'graphql-transport-ws', header);
    const legacy = await Raw.open(url, 'graphql-ws', header);
    const newest = await Raw.open(url, 'graphql-transport-ws', header);
    for (const conn of [modern, legacy, newest]) {
      conn.send({ type: 'connection_init', payload: {} });
      await conn.next((m) => m.type === 'connection_ack');
    }
    const seen = since();
    modern.send({ id: 'a', type: 'subscribe', payload: { query: SUB } });
    modern.send({ id: 'b', type: 'subscribe', payload: { query: SUB } });
    legacy.send({ id: 1, type: 'start', payload: { query: SUB } });
    legacy.send({ id: 2, type: 'start', payload: { query: SUB } });
    await until(() => seen().filter((m) => m.type === 'subscribe' || m.type === 'start').length === 4, 'four subscriptions reach the upstream');

    await edge.store.setPlan(dev.id, 'free');
    expect(await newest.closed).to.deep.equal({ code: 4429, reason: 'Limit exceeded: open subscription connections for this key' });
    for (const id of [2, 1]) {
      const ended = await legacy.next((m) => m.type === 'error' && m.id === id);
      expect(ended.payload.extensions.code).to.equal('RATE_LIMITED');
      expect(ended.payload.message).to.contain('your plan allows 2');
    }
    await until(() => [1, 2].every((id) => seen().some((m) => m.id === id && m.type === 'stop')), 'the upstream is told to stop 1 and 2');
    expect(modern.messages.filter((m) => m.type === 'error'), 'the oldest two keep running').to.deep.equal([]);

    legacy.send({ id: 3, type: 'start', payload: { query: SUB } });
    expect((await legacy.next((m) => m.type === 'error' && m.id === 3)).payload.message).to.contain('your plan allows 2');
    modern.send({ id: 'a', type: 'complete' });
    legacy.send({ id: 4, type: 'start', payload: { query: SUB } });
    await until(() => seen().some((m) => m.id === 4 && m.type === 'start'), 'a start within the new cap reaches the upstream');
    for (const conn of [modern, legacy]) conn.ws.close();
  });

  it('closes a socket authenticated at the handshake that sends no connection_init with 4408 after server.wsAuthTimeoutMs (3 s)', async function () {
    // Below the 10 s such a socket was given before.
    this.timeout(8_000);
    expect(configSchema.shape.server.parse({}).wsAuthTimeoutMs).to.equal(3_000);
    const waiting = await Raw.open(url, 'graphql-transport-ws', { 'x-api-key': PREMIUM.raw });
    expect(await waiting.closed).to.deep.equal({ code: 4408, reason: 'Connection initialisation timeout' });
  });

  it('closes a client that reads nothing once its unsent bytes pass server.wsMaxBufferedBytes', async () => {
    const conn = await Raw.open(url, 'graphql-transport-ws', { 'x-api-key': PREMIUM.raw });
    conn.send({ type: 'connection_init', payload: {} });
    await conn.next((m) => m.type === 'connection_ack');
    (conn.ws as any)._socket.pause();
    conn.send({ id: 'f', type: 'subscribe', payload: { query: 'subscription { flood }' } });
    await until(() => upstream.flood.closed || upstream.flood.sent >= FLOOD_MAX, 'the upstream closed or sent everything', 5_000);
    expect(upstream.flood.closed, `closed after ${upstream.flood.sent} messages of 64 KiB`).to.equal(true);
    (conn.ws as any)._socket.resume();
    expect(await conn.closed).to.deep.equal({ code: 4008, reason: `Slow reader: more than ${MAX_BUFFERED} bytes unread` });
  });
});
