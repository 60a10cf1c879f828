import net from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { defaultChains } from '../../src/config/catalogue.js';
import { createLogger } from '../../src/log.js';
import type { TestGateway } from '../support/gateway.js';
import { startOpsGateway } from './support.js';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const RPC = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });

describe('secrecy: API keys in logs and metrics', function () {
  let t: TestGateway;
  let keyId: string;
  let key: string;
  const lines: string[] = [];
  /** Key-shaped but unknown: refused keys must not be logged either. */
  const unknownKey = 'pk_prod_' + 'Zq9'.repeat(11);
  /** An operator's upstream URL that carries its own credential, echoed by connection errors. */
  const upstreamSecret = 'upstreamsecret' + 'x'.repeat(20);

  before(async function () {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const deadPort = await closedPort();
    t = await startOpsGateway(
      {
        chains: {
          ...defaultChains(),
          broken: { displayName: 'Broken', networks: { mainnet: { chainId: 999_001, upstreams: [`http://127.0.0.1:${deadPort}/v1/${upstreamSecret}/rpc`] } } },
        },
      },
      { logger: createLogger('debug', sink) },
    );
    ({ key, id: keyId } = await t.newKey());
    const base = t.gw.url;
    const post = (path: string, headers: Record<string, string> = {}, body = RPC) =>
      fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then((r) => r.text());
    const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers }).then((r) => r.text());

    for (const k of [key, unknownKey]) {
      // The three ways to send a key, on JSON-RPC (ledger relay and an EVM devnet), REST, GraphQL and MCP.
      await post('/hedera-testnet/rpc', { 'x-api-key': k });
      await post('/hedera-testnet/rpc', { authorization: `Bearer ${k}` });
      await post(`/hedera-testnet/v1/${k}/rpc`);
      await post(`/ethereum-sepolia/v1/${encodeURIComponent(k)}/rpc`);
      await get(`/hedera-testnet/v1/${k}/api/v1/blocks?limit=1`);
      await get('/hedera-testnet/api/v1/accounts?limit=1', { 'x-api-key': k });
      await post(`/hedera-testnet/v1/${k}/graphql`, {}, JSON.stringify({ query: '{ __typename }' }));
      await post(`/v1/${k}/mcp`, { accept: 'application/json, text/event-stream' }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
      // Errors: a failing upstream whose URL carries a credential, a conflict of two keys, an unknown path.
      await post(`/broken/v1/${k}/rpc`, {}, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }));
      await post('/hedera-testnet/rpc', { 'x-api-key': k, authorization: `Bearer ${unknownKey}x` });
      await get(`/hedera-testnet/v1/${k}/nothing-here`);
      await get(`/no-such-network/v1/${k}/rpc`);
    }
  });

  after(() => t?.close());

  it('writes one JSON log line per request with its id, host, API, status, duration and key id', () => {
    const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requests.length).to.be.at.least(24);
    const relay = requests.find((l) => l.keyId === keyId && l.api === 'rpc' && l.network === 'hedera-testnet');
    expect(relay).to.include({ status: 200, httpMethod: 'POST', keyId });
    expect(relay).to.have.property('requestId').that.is.a('string');
    expect(relay).to.have.property('host').that.is.a('string');
    expect(relay).to.have.property('ms').that.is.a('number');
    expect(relay.rpcMethods).to.deep.equal(['eth_chainId']);
    expect(requests.some((l) => l.status === 401)).to.equal(true);
  });

  it('never logs a key, valid or not, nor an upstream credential', () => {
    const text = lines.join('\n');
    expect(text).to.include('/v1/***');
    for (const secret of [key, encodeURIComponent(key), unknownKey, upstreamSecret]) expect(text).to.not.include(secret);
  });

  it('masks only the key in a logged path: the REST resource stays readable', () => {
    const paths = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request').map((l) => l.path as string);
    expect(paths).to.include('/hedera-testnet/api/v1/accounts?limit=1');
    expect(paths).to.include('/hedera-testnet/v1/***/api/v1/blocks?limit=1');
    const captured: string[] = [];
    createLogger('info', new Writable({ write: (c, _e, done) => (captured.push(String(c)), done()) })).info({ path: '/api/v1/accounts/0.0.2' }, 'GET /api/v1/accounts/0.0.2');
    expect(captured.join('')).to.include('"path":"/api/v1/accounts/0.0.2"').and.include('"msg":"GET /api/v1/accounts/0.0.2"');
  });

  it('scrubs keys from every string a module logs, messages and error objects alike', () => {
    const captured: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c, _e, done) => (captured.push(String(c)), done()) }));
    const url = `https://gateway.example/hedera-testnet/v1/${key}/api/v1/accounts`;
    logger.error({ err: new Error(`fetch ${url} failed`), upstream: { url, detail: [`key=${key}`] } }, `upstream said ${url}`);
    logger.warn(`retrying ${url}`);
    const text = captured.join('');
    expect(text).to.include('/v1/***');
    expect(text).to.not.include(key);
  });

  it('never puts a key or key id in a metric', async () => {
    const metrics = await fetch(`${t.gw.privateUrl}/metrics`).then((r) => r.text());
    expect(metrics).to.include('gateway_requests_total');
    for (const secret of [key, unknownKey, keyId, upstreamSecret]) expect(metrics).to.not.include(secret);
  });
});
