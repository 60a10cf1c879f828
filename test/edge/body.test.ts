/** Request bodies: read whole whether they arrived with the headers or in pieces later, refused past the limit either way. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { readBody } from '../../src/edge/body.js';
import { isGatewayError } from '../../src/errors.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const LIMIT = 1_000;

describe('request body', () => {
  let server: http.Server;
  let port: number;
  /** What the server's readBody gave for each request, in order: the body's text or the error's name. */
  const outcomes: string[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      // As at the edge: read after a few ticks (key verification), when a small body is usually already in.
      setImmediate(() =>
        readBody(req, LIMIT).then(
          (body) => {
            outcomes.push(body.toString());
            res.end('ok');
          },
          (err) => {
            outcomes.push(isGatewayError(err) ? err.errorName : String(err));
            res.writeHead(413, { connection: 'close' }).end();
          },
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => (outcomes.length = 0));

  /** Sends `pieces` of a chunked body, waiting `gapMs` before each piece after the first. */
  function send(pieces: string[], gapMs: number, headers: Record<string, string> = {}): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = http.request({ port, method: 'POST', headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      const next = (i: number) => {
        if (i === pieces.length) return void req.end();
        req.write(pieces[i]);
        setTimeout(() => next(i + 1), gapMs);
      };
      next(0);
    });
  }

  it('reads a body that arrived with the headers, one that came in pieces later, and an empty one', async () => {
    const whole = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' });
    expect(await send([whole], 0, { 'content-length': String(whole.length) })).to.equal(200);
    expect(await send(['{"a":', '1,"b"', ':2}'], 30)).to.equal(200);
    expect(await send([], 0, { 'content-length': '0' })).to.equal(200);
    expect(outcomes).to.deep.equal([whole, '{"a":1,"b":2}', '']);
  });

  it('refuses a body past the limit by its length, whole or in pieces, and without a declared length', async () => {
    const big = 'x'.repeat(LIMIT + 1);
    expect(await send([big], 0, { 'content-length': String(big.length) })).to.equal(413);
    expect(await send([big], 0)).to.equal(413);
    expect(await send(['x'.repeat(600), 'x'.repeat(600)], 30)).to.equal(413);
    expect(outcomes).to.deep.equal(['BODY_TOO_LARGE', 'BODY_TOO_LARGE', 'BODY_TOO_LARGE']);
  });
});

describe('a body far past the limit, through the gateway', function () {
  this.timeout(120_000);
  let t: TestGateway;
  before(async () => (t = await startTestGateway()));
  after(() => t?.close());

  // The official relay's compliance suite posts eth_getLogs with a million addresses (44 MB): the client must get the
  // refusal as a JSON-RPC error, not a reset while it is still sending.
  for (const declared of [true, false]) {
    it(`answers 413 with a JSON-RPC error and no reset (${declared ? 'with' : 'without'} a declared length)`, async () => {
      const addresses = Array.from({ length: 1_000_000 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
      const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'limit-test', method: 'eth_getLogs', params: [{ address: addresses }] }));
      const url = new URL(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`);
      // Settled when the request is over (its socket closed), so a reset after the answer counts too.
      const answer = await new Promise<{ status: number; text: string; error?: string }>((resolve) => {
        const headers = { 'content-type': 'application/json', ...(declared ? { 'content-length': String(body.length) } : {}) };
        const got = { status: 0, text: '', error: undefined as string | undefined };
        const req = http.request(url, { method: 'POST', headers, agent: false }, (res) => {
          got.status = res.statusCode!;
          res.setEncoding('utf8');
          res.on('data', (chunk) => (got.text += chunk));
        });
        req.on('error', (err) => (got.error ??= err.message));
        req.on('close', () => resolve(got));
        for (let i = 0; i < body.length; i += 1 << 16) req.write(body.subarray(i, i + (1 << 16)));
        req.end();
      });
      expect(answer.error).to.equal(undefined);
      expect(answer.status).to.equal(413);
      expect(JSON.parse(answer.text)).to.deep.include({ jsonrpc: '2.0', id: null }).and.have.nested.property('error.code', -32600);
    });
  }
});

describe('a keyless body past the limit, through the gateway', function () {
  this.timeout(60_000);
  let t: TestGateway;
  before(async () => (t = await startTestGateway()));
  after(() => t?.close());

  // Draining is for keyed callers, whose refused body is charged to their key; a stranger's is cut at the limit.
  it('is refused as soon as it passes the keyless limit, without waiting for the rest it declared', async function () {
    // Well below the keyless body timeout (10 s), which a drain would wait for.
    this.timeout(5_000);
    const url = new URL(`${t.gw.url}/mcp`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(8 << 20) }, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', (err) => (err.message.includes('EPIPE') || err.message.includes('ECONNRESET') ? undefined : reject(err)));
      // 64 KiB of the declared 8 MiB, then nothing: a drain would wait for the rest until the keyless timeout.
      req.write(Buffer.alloc(64 * 1024, 0x20));
    });
    expect(status).to.equal(413);
  });
});
