/**
 * Bodies read before anyone is known (MCP without a key, the key form, the usage form) are held to the small keyless
 * limit, refused as soon as they pass it (by Content-Length or while streaming) and answered 408 when they stall; a
 * request with a key keeps the gateway's limit. (Finding 8 of issue 24.)
 */
import net from 'node:net';
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const LIMIT = 4_096;

/** Sends `head` and `body` on a fresh connection, never finishing the body; resolves with the answer's status and body. */
function stalledRequest(port: number, head: string, body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('close', () => resolve({ status: Number(answer.split(' ')[1]), body: answer.slice(answer.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
    socket.write(`${head}\r\n\r\n${body}`);
  });
}

const post = (path: string, headers: string[]) => [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...headers].join('\r\n');
const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;

describe('bodies read before authentication', function () {
  // An unfixed gateway waits for these bodies for two minutes: fail well before that.
  this.timeout(15_000);
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway({ server: { keylessBodyLimitBytes: LIMIT, keylessBodyTimeoutMs: 500 } });
  });
  after(() => t?.close());

  it('answers a keyless /mcp body declared larger than the keyless limit with 413 before any of it is sent', async () => {
    const res = await stalledRequest(t.gw.port, post('/mcp', ['Content-Type: application/json', `Content-Length: ${5 * 1024 * 1024}`]));
    expect(res.status).to.equal(413);
    expect(JSON.parse(res.body).error).to.deep.include({ code: -32600, message: `Request body too large: at most ${LIMIT} bytes` });
  });

  it('refuses a keyless /mcp body without a length as soon as it passes the limit', async () => {
    const res = await stalledRequest(t.gw.port, post('/mcp', ['Content-Type: application/json', 'Transfer-Encoding: chunked']), chunk(' '.repeat(LIMIT + 1)));
    expect(res.status).to.equal(413);
  });

  it('answers a keyless body that stops arriving with 408, in the API\'s convention', async () => {
    const res = await stalledRequest(t.gw.port, post('/mcp', ['Content-Type: application/json', 'Content-Length: 100']), '[{"jsonrpc"');
    expect(res.status).to.equal(408);
    expect(JSON.parse(res.body).error.message).to.equal('Request body not received in time: send the whole body within 1 s');
  });

  it('keeps the gateway\'s body limit for a request with a key', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) + ' '.repeat(2 * LIMIT);
    const res = await fetch(`${t.gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': t.key },
      body,
    });
    expect(res.status).to.equal(200);
    expect((await res.json()).result.tools).to.be.an('array').that.is.not.empty;
  });

  it('refuses a key-page form past the keyless limit by its length, with an HTML page', async () => {
    const res = await stalledRequest(t.gw.port, post('/keys/new', ['Content-Type: application/x-www-form-urlencoded', 'Content-Length: 65536']));
    expect(res.status).to.equal(413);
    expect(res.body).to.include('<html').and.include('Request body too large');
  });

  it('refuses a usage form past 1 KiB while reading it, not after', async () => {
    const res = await stalledRequest(
      t.gw.port,
      post('/keys/usage', ['Content-Type: application/x-www-form-urlencoded', 'Transfer-Encoding: chunked']),
      chunk(`key=${'k'.repeat(2_000)}`),
    );
    expect(res.status).to.equal(413);
    expect(res.body).to.include('at most 1024 bytes');
  });
});
