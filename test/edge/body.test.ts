/** Request bodies: read whole whether they arrived with the headers or in pieces later, refused past the limit either way. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { readBody } from '../../src/edge/body.js';
import { isGatewayError } from '../../src/errors.js';

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
