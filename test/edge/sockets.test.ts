/**
 * The edge's WebSocket gate bounds what a socket may cost before and after it authenticates: a message-size limit on
 * every socket, a cap on sockets that have not authenticated, and a timeout for them.
 */
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
