/**
 * The edge's headers on every answer a JSON-RPC client can get: the request id, the CORS headers a browser app needs
 * (those a browser reads only from a preflight, on the preflight only), and the budget after a charge, each exactly
 * once, whichever path wrote the answer.
 */
import { expect } from 'chai';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after',
};
/** Read by a browser from a preflight's answer only. */
const PREFLIGHT = {
  'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, x-api-key, authorization',
  'access-control-max-age': '600',
};

function expectEdgeHeaders(headers: Headers, requestId: string, preflight = false): void {
  // Equal to the one value sent: a repeated header would read "a, a".
  expect(headers.get('x-request-id')).to.equal(requestId);
  for (const [name, value] of Object.entries(CORS)) expect(headers.get(name), name).to.equal(value);
  for (const [name, value] of Object.entries(PREFLIGHT)) expect(headers.get(name), name).to.equal(preflight ? value : null);
}

describe('edge headers on JSON-RPC answers', () => {
  let t: TestGateway;
  before(async () => (t = await startTestGateway()));
  after(() => t?.close());

  const call = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };

  it('an answer carries the request id, the CORS headers and the budget left, once each', async () => {
    const res = await rpc(`${t.gw.url}/ethereum-sepolia/rpc`, call, { 'x-api-key': t.key, 'x-request-id': 'answer-1' });
    expect(res.status).to.equal(200);
    expectEdgeHeaders(res.headers, 'answer-1');
    expect(res.headers.get('content-type')).to.equal('application/json');
    // fetch joins a repeated header's values with ", ": a single number means it was sent once.
    for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(res.headers.get(name), name).to.match(/^\d+$/);
    expect(res.headers.get('content-length')).to.equal(String(Buffer.byteLength(res.text)));
  });

  it('a refusal before the charge (no key), an unknown network and a preflight carry the request id and CORS headers', async () => {
    const refused = await rpc(`${t.gw.url}/ethereum-sepolia/rpc`, call, { 'x-request-id': 'refused-1' });
    expect(refused.status).to.equal(401);
    expectEdgeHeaders(refused.headers, 'refused-1');
    expect(refused.headers.get('ratelimit-remaining')).to.equal(null);

    const unknown = await rpc(`${t.gw.url}/etherium-sepolia/rpc`, call, { 'x-api-key': t.key, 'x-request-id': 'unknown-1' });
    expect(unknown.status).to.equal(404);
    expectEdgeHeaders(unknown.headers, 'unknown-1');

    const preflight = await fetch(`${t.gw.url}/ethereum-sepolia/rpc`, { method: 'OPTIONS', headers: { 'x-request-id': 'preflight-1' } });
    expect(preflight.status).to.equal(204);
    expectEdgeHeaders(preflight.headers, 'preflight-1', true);
  });

  it('a body over the limit is refused with 413 and the connection closed, with the request id', async () => {
    const big = JSON.stringify({ ...call, params: ['x'.repeat(t.gw.config.server.bodyLimitBytes)] });
    const res = await rpc(`${t.gw.url}/ethereum-sepolia/rpc`, big, { 'x-api-key': t.key, 'x-request-id': 'big-1' });
    expect(res.status).to.equal(413);
    expectEdgeHeaders(res.headers, 'big-1');
    expect(res.headers.get('connection')).to.equal('close');
  });
});
