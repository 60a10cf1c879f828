/**
 * Path safety: a path with a dot segment in any spelling never reaches an upstream. A recording upstream stands for
 * the operator's mirror node and GraphQL server behind the whole gateway; REST, GraphQL and the MCP REST tool are
 * each tried with escapes sent byte for byte (no client-side normalisation).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { normalisePath } from '../../src/edge/paths.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { callTool, connectClient, textOf } from '../mcp/client.js';

/** GET or POST with the path exactly as written. */
function raw(base: string, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const ESCAPES = [
  '/api/v1/../../../admin/secret',
  '/api/v1/%2e%2e/%2e%2e/admin/secret',
  '/api/v1/%2E%2E/%2E%2E/admin/secret',
  '/api/v1/..%2f..%2fadmin/secret',
  '/api/v1/..%5c..%5cadmin/secret',
  '/api/v1/..\\..\\admin/secret',
  '/api/v1/%252e%252e/%252e%252e/admin/secret',
  '/api/v1//..//..//admin/secret',
  '/api/v1/accounts/./../../admin',
  '/api/v1/.%2e/admin?limit=1',
];

describe('path safety', () => {
  const seen: string[] = [];
  let upstream: http.Server;
  let gw: TestGateway;

  before(async () => {
    upstream = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"accounts":[],"links":{"next":null},"data":{}}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    gw = await startTestGateway({
      chains: {
        hedera: {
          kind: 'ledger',
          displayName: 'Hedera',
          networks: {
            mainnet: { chainId: 295, apis: ['rpc', 'rest', 'graphql'] },
            testnet: { chainId: 296, apis: ['rpc', 'rest', 'graphql'], ledger: { mirrorUrl: origin, mirrorApiKey: 'operator-secret', consensus: 'testnet', graphqlUrl: `${origin}/v1/graphql` } },
          },
        },
      },
    });
  });
  after(async () => {
    await gw.close();
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  it('normalises encoded slashes, backslashes and repeated slashes, and marks dot segments in any spelling', () => {
    expect(normalisePath('/api/v1//accounts%2f0.0.2')).to.deep.equal({ path: '/api/v1/accounts/0.0.2', unsafe: false });
    expect(normalisePath('/api/v1\\accounts')).to.deep.equal({ path: '/api/v1/accounts', unsafe: false });
    expect(normalisePath('/api/v1/tokens/a..b')).to.deep.equal({ path: '/api/v1/tokens/a..b', unsafe: false });
    // Paths with nothing to decode: kept as they are, repeated slashes collapsed, control characters refused.
    expect(normalisePath('/ethereum-sepolia/rpc')).to.deep.equal({ path: '/ethereum-sepolia/rpc', unsafe: false });
    expect(normalisePath('//ethereum-sepolia///rpc')).to.deep.equal({ path: '/ethereum-sepolia/rpc', unsafe: false });
    expect(normalisePath('/ethereum/rpc\u0001')).to.deep.equal({ path: '/ethereum/rpc\u0001', unsafe: true });
    for (const path of ESCAPES) expect(normalisePath(path.split('?')[0]).unsafe, path).to.equal(true);
  });

  it('refuses REST escapes with 400 in the mirror-node convention; the upstream never sees them', async () => {
    for (const path of ESCAPES) {
      for (const prefix of ['/hedera-testnet', `/hedera-testnet/v1/${gw.key}`]) {
        const res = await raw(gw.gw.url, `${prefix}${path}`, { headers: { 'x-api-key': gw.key } });
        expect(res.status, path).to.equal(400);
        expect(JSON.parse(res.body)._status.messages[0].message, path).to.match(/^Path refused/);
      }
    }
    // Without a key too: the path is judged before anything else.
    expect((await raw(gw.gw.url, '/hedera-testnet/api/v1/../../admin')).status).to.equal(400);
    expect(seen).to.deep.equal([]);
  });

  it('forwards the normalised form of a path that stays inside the API', async () => {
    const res = await raw(gw.gw.url, '/hedera-testnet/api/v1//accounts%2f0.0.2?limit=1', { headers: { 'x-api-key': gw.key } });
    expect(res.status).to.equal(200);
    expect(seen).to.deep.equal(['/api/v1/accounts/0.0.2?limit=1']);
  });

  it('refuses GraphQL escapes with 400; the upstream never sees them', async () => {
    const body = JSON.stringify({ query: '{ a }' });
    const headers = { 'x-api-key': gw.key, 'content-type': 'application/json' };
    for (const path of ['/hedera-testnet/v1/graphql/../../admin', '/hedera-testnet/v1/%2e%2e/graphql', '/hedera-testnet/v1/graphql/%2e%2e', '/hedera-testnet/../v1/graphql']) {
      const res = await raw(gw.gw.url, path, { method: 'POST', headers, body });
      expect(res.status, path).to.equal(400);
      expect(res.body, path).to.match(/Path refused/);
    }
    const inGraphqlShape = await raw(gw.gw.url, '/hedera-testnet/v1/%2e%2e/graphql', { method: 'POST', headers, body });
    expect(JSON.parse(inGraphqlShape.body).errors[0].extensions.code).to.equal('BAD_REQUEST');
    expect(seen).to.deep.equal([]);
  });

  it('refuses MCP escapes, through the endpoint path and through ledger_rest_get; the upstream never sees them', async () => {
    const res = await raw(gw.gw.url, '/v1/%2e%2e/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).to.equal(400);
    const client = await connectClient(`${gw.gw.url}/mcp`, gw.key);
    try {
      for (const path of ESCAPES) {
        const answer = await callTool(client, 'ledger_rest_get', { chain: 'hedera', network: 'testnet', path });
        expect(answer.isError, path).to.equal(true);
        expect(textOf(answer), path).to.include('must stay under /api/v1/');
      }
    } finally {
      await client.close();
    }
    expect(seen).to.deep.equal([]);
  });
});
