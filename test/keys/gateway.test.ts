import { expect } from 'chai';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway, type Gateway } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { generateKey } from '../../src/keys/format.js';
import { createLogger } from '../../src/log.js';
import type { KeyStore } from '../../src/keys/store.js';
import { sharedMemoryStore } from '../support/keyStores.js';
import { KEYLESS_FOR_TESTS } from '../support/edge.js';

const CACHE_TTL_MS = 300;
type Method = 'x-api-key' | 'bearer' | 'path';

/** One request per API, each in its own shape; `prefix` is the bare-domain network segment. */
const APIS = {
  'JSON-RPC (EVM chain)': { prefix: '/ethereum-sepolia', path: '/rpc', body: { jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] } },
  'JSON-RPC (ledger relay)': { prefix: '/hedera-testnet', path: '/rpc', body: { jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] } },
  REST: { prefix: '/hedera-testnet', path: '/api/v1/network/exchangerate', body: undefined },
  GraphQL: { prefix: '/hedera-testnet', path: '/graphql', body: { query: '{ __typename }' } },
  MCP: { prefix: '', path: '/mcp', body: { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} } },
} as const;
type ApiName = keyof typeof APIS;

describe('API keys through the real gateway', () => {
  let store: KeyStore;
  let gateway: Gateway;
  let key: string;
  let keyId: string;
  const logLines: string[] = [];
  const logSink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });

  before(async () => {
    store = await sharedMemoryStore();
    // Wrong keys cost their address a keyless request; these tests send dozens in a row and are about conventions.
    const config = loadConfig({
      env: {},
      overrides: { server: { port: 0 }, keys: { dataDir: 'memory://', demoKey: false, cacheTtlMs: CACHE_TTL_MS }, limits: KEYLESS_FOR_TESTS },
    });
    gateway = await startGateway(config, { keyStore: store, logger: createLogger('info', logSink) });
    const account = await store.createAccount({ name: 'Matrix' });
    ({ key, record: { id: keyId } } = await store.createKey({ accountId: account.id, name: 'all', plan: 'developer', network: 'testnet', flags: ['relay_beta'] }));
  });
  after(async () => {
    await gateway?.close();
  });

  /** `/graphql` after a path key is the ledger's `/v1/graphql`; without one it is spelled out. */
  function request(api: ApiName, auth: { method: Method; key: string } | undefined, extraHeaders: Record<string, string> = {}) {
    const { prefix, path, body } = APIS[api];
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extraHeaders };
    let url = `${gateway.url}${prefix}${path === '/graphql' ? '/v1/graphql' : path}`;
    if (auth?.method === 'x-api-key') headers['x-api-key'] = auth.key;
    if (auth?.method === 'bearer') headers.authorization = `Bearer ${auth.key}`;
    if (auth?.method === 'path') url = `${gateway.url}${prefix}/v1/${encodeURIComponent(auth.key)}${path}`;
    return fetch(url, body ? { method: 'POST', headers, body: JSON.stringify(body) } : { headers });
  }

  /** The 401 in the API's own convention: its message, which must say how to send a key. */
  async function authErrorMessage(api: ApiName, res: Response): Promise<string> {
    expect(res.status, api).to.equal(401);
    const body = await res.json();
    if (api === 'REST') return body._status.messages[0].message;
    if (api === 'GraphQL') {
      expect(body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
      return body.errors[0].message;
    }
    expect(body.jsonrpc).to.equal('2.0');
    expect(body.error.code).to.equal(-32001);
    // Refused before the body is read, so the request's id is not known: JSON-RPC's null id.
    expect(body.id).to.equal(null);
    return body.error.message;
  }

  for (const api of Object.keys(APIS) as ApiName[]) {
    for (const method of ['x-api-key', 'bearer', 'path'] as Method[]) {
      it(`${api}: the key works sent by ${method}`, async () => {
        const res = await request(api, { method, key });
        expect(res.status, await res.clone().text()).to.equal(200);
        const text = await res.text();
        if (api.startsWith('JSON-RPC')) expect(JSON.parse(text).result).to.equal(api.includes('EVM') ? '0xaa36a7' : '0x128');
        if (api === 'REST') expect(JSON.parse(text)).to.have.property('current_rate');
        if (api === 'GraphQL') expect(JSON.parse(text).data).to.be.an('object');
        if (api === 'MCP') expect(text).to.include('get_api_key_link');
      });
    }

    it(`${api}: a wrong key gets 401 in its own convention, never echoing the key`, async () => {
      const wrong = generateKey();
      for (const method of ['x-api-key', 'bearer', 'path'] as Method[]) {
        const message = await authErrorMessage(api, await request(api, { method, key: wrong }));
        expect(message).to.include('X-API-KEY').and.include('Authorization: Bearer').and.include('/v1/<key>/');
        expect(message).not.to.include(wrong);
      }
    });

    if (api !== 'MCP') {
      it(`${api}: a missing key gets 401 saying how to send one`, async () => {
        const message = await authErrorMessage(api, await request(api, undefined));
        expect(message).to.include('missing').and.include('X-API-KEY');
      });
    }

    it(`${api}: two different keys get 400`, async () => {
      const res = await request(api, { method: 'path', key }, { 'x-api-key': generateKey() });
      expect(res.status).to.equal(400);
    });
  }

  it('stops a revoked key on every API within the cache TTL', async () => {
    const account = await store.createAccount({ name: 'Revoked' });
    const made = await store.createKey({ accountId: account.id, name: 'r', plan: 'developer', flags: ['relay_beta'] });
    expect((await request('JSON-RPC (EVM chain)', { method: 'x-api-key', key: made.key })).status).to.equal(200);
    await store.revoke(made.record.id);
    await sleep(CACHE_TTL_MS + 50);
    for (const api of Object.keys(APIS) as ApiName[]) {
      const message = await authErrorMessage(api, await request(api, { method: 'bearer', key: made.key }));
      expect(message).to.include('revoked');
    }
  });

  it("logs the key's id, never the key, even for path auth", async () => {
    const res = await request('REST', { method: 'path', key }, { 'x-request-id': 'path-auth-log' });
    expect(res.status).to.equal(200);
    expect(JSON.stringify([...res.headers])).not.to.include(key);
    const line = logLines.find((l) => l.includes('"path-auth-log"'));
    expect(line).to.include(`"keyId":"${keyId}"`).and.include('/v1/***/');
    expect(logLines.join('')).not.to.include(key);
  });
});
