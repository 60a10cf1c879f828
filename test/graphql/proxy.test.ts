/**
 * The GraphQL proxy on a minimal edge, in front of the real ledger GraphQL stand-in over a real LedgerChain:
 * queries, guards, errors, and subscriptions in both protocols with charging, connection limits and revocation.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import WebSocket, { WebSocketServer } from 'ws';
import { defaultPlans } from '../../src/config/catalogue.js';
import { configSchema } from '../../src/config/schema.js';
import { createGraphqlProxy } from '../../src/graphql/proxy.js';
import { registry } from '../../src/metrics.js';
import { LedgerChain } from '../../packages/sandbox/src/ledger/chain.js';
import { startLedgerGraphql } from '../../packages/sandbox/src/graphql/ledger.js';
import type { StandIn } from '../../packages/sandbox/src/graphql/server.js';
import { startTestEdge, type TestEdge } from '../support/edge.js';
import { legacyClient, modernClient, postGraphql } from './clients.js';

const LATEST = '{ transaction(limit: 1, order_by: {consensus_timestamp: desc}) { consensus_timestamp } }';
const LATEST_SUB = `subscription ${LATEST}`;
let FREE = '';
let PREMIUM = '';
let PREMIUM_ID = '';

/** The server settings the proxy takes, at their defaults. */
const SERVER = configSchema.shape.server.parse({});

let validStart = 1_700_000_000;
/** Records a FILECREATE in a closed block, so it is visible when this resolves. */
async function submitFile(chain: LedgerChain): Promise<void> {
  await chain.createFile({ transactionId: `0.0.2-${validStart++}-0`, payer: '0.0.2', hash: `0x${randomBytes(48).toString('hex')}`, contents: Buffer.from('x') });
  await chain.closeBlock();
}

describe('GraphQL proxy (standalone edge, real ledger stand-in)', () => {
  let chain: LedgerChain;
  let gql: StandIn;
  let edge: TestEdge;
  let down: string;
  /** A WebSocket upstream that records what the gateway sends it, for checks the stand-in cannot show. */
  let recorder: { server: http.Server; wss: WebSocketServer; url: string; seen: string[] };
  let url: string;

  before(async () => {
    chain = await LedgerChain.create({ chainId: 296, blockIntervalMs: 0 });
    await submitFile(chain);
    gql = await startLedgerGraphql(chain);
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    down = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/v1/graphql`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const server = http.createServer();
    const wss = new WebSocketServer({ server });
    const seen: string[] = [];
    wss.on('connection', (ws) => ws.on('message', (m) => {
      seen.push(String(m));
      ws.send(JSON.stringify({ type: 'connection_ack' }));
    }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    recorder = { server, wss, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/graphql`, seen };

    const graphql = createGraphqlProxy({
      timeoutMs: 2_000,
      maxPayloadBytes: 1024 * 1024,
      server: SERVER,
      upstreams: async (network) => ({
        rpc: [],
        graphqlUrl: network.networkName === 'mainnet' ? down : network.networkName === 'previewnet' ? recorder.url : gql.url,
      }),
    });
    edge = await startTestEdge(
      { graphql, 'beta-graphql': graphql },
      { overrides: {
        // Revocation closes open sockets within this bound.
        keys: { cacheTtlMs: 50 },
        // The free plan's guards, without its per-second budget getting in the way of a suite that sends many requests.
        plans: { ...defaultPlans(), free: { ...defaultPlans().free, requestsPerSecond: 10_000 } },
        chains: { hedera: { kind: 'ledger', displayName: 'Hedera', networks: {
          mainnet: { chainId: 295, apis: ['rpc', 'graphql'] },
          testnet: { chainId: 296, apis: ['rpc', 'graphql'] },
          previewnet: { chainId: 297, apis: ['rpc', 'graphql'] },
        } } },
      } },
    );
    FREE = (await edge.addKey('free')).raw;
    ({ raw: PREMIUM, id: PREMIUM_ID } = await edge.addKey('premium'));
    url = `${edge.url}/hedera-testnet/v1/graphql`;
  });
  after(async () => {
    await edge.close();
    await gql.close();
    for (const c of recorder.wss.clients) c.terminate();
    recorder.server.closeAllConnections();
    await new Promise<void>((resolve) => recorder.server.close(() => resolve()));
    await chain.close();
  });

  it('answers the latest-transaction query in the data shape the hosted service uses', async () => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': FREE }, body: JSON.stringify({ query: LATEST }) });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.match(/^\{"data":\{"transaction":\[\{"consensus_timestamp":"\d+"\}\]\}\}$/);
  });

  it('accepts the key in the path (/v1/<key>/graphql) and as a bearer token', async () => {
    const viaPath = await postGraphql(`${edge.url}/hedera-testnet/v1/${FREE}/graphql`, { query: LATEST });
    expect(viaPath.status).to.equal(200);
    expect(viaPath.body.data.transaction).to.have.length(1);
    const viaBearer = await postGraphql(url, { query: LATEST }, { authorization: `Bearer ${FREE}` });
    expect(viaBearer.body.data.transaction).to.have.length(1);
  });

  it('answers auth, method and body errors in the GraphQL shape', async () => {
    const noKey = await postGraphql(url, { query: LATEST });
    expect(noKey.status).to.equal(401);
    expect(noKey.body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
    const get = await fetch(url, { headers: { 'x-api-key': FREE } });
    expect(get.status).to.equal(405);
    expect(((await get.json()) as any).errors[0].extensions.code).to.equal('METHOD_NOT_ALLOWED');
    for (const body of ['not json', '{"variables":{}}', '{"query":"{ a }","variables":[1]}']) {
      const bad = await postGraphql(url, body, { 'x-api-key': FREE });
      expect(bad.status, body).to.equal(400);
      expect(bad.body.errors[0].extensions.code).to.equal('BAD_REQUEST');
    }
    const syntax = await postGraphql(url, { query: '{ transaction(' }, { 'x-api-key': FREE });
    expect(syntax.status).to.equal(400);
    expect(syntax.body.errors[0].extensions.code).to.equal('GRAPHQL_PARSE_FAILED');
  });

  it('refuses malformed bodies without reaching the upstream, and says 502 when the upstream is down', async () => {
    const mainnet = `${edge.url}/hedera/v1/graphql`;
    const malformed = await postGraphql(mainnet, '{"query": 42}', { 'x-api-key': FREE });
    expect(malformed.status).to.equal(400);
    const valid = await postGraphql(mainnet, { query: LATEST }, { 'x-api-key': FREE });
    expect(valid.status).to.equal(502);
    expect(valid.body.errors[0].extensions.code).to.equal('BAD_GATEWAY');
    expect(JSON.stringify(valid.body)).not.to.contain('127.0.0.1');
  });

  it('applies the plan depth and size guards before forwarding', async () => {
    const deep = '{ transaction { a { b { c { d { e { f } } } } } } }'; // depth 7; free allows 6
    const refused = await postGraphql(url, { query: deep }, { 'x-api-key': FREE });
    expect(refused.status).to.equal(400);
    expect(refused.body.errors[0].extensions.code).to.equal('QUERY_TOO_DEEP');
    expect(refused.body.errors[0].message).to.contain('depth 7; your plan allows 6');
    // Fragments count for what they select.
    const viaFragment = await postGraphql(url, { query: `${'query { ...F }'} fragment F on query_root { transaction { a { b { c { d { e { f } } } } } } }` }, { 'x-api-key': FREE });
    expect(viaFragment.body.errors[0].extensions.code).to.equal('QUERY_TOO_DEEP');
    // Premium has no depth limit of its own, so the server's bound (20) applies: depth 7 reaches the upstream, which
    // judges the fields; depth 21 and a query over 64 KiB do not.
    const forwarded = await postGraphql(url, { query: deep }, { 'x-api-key': PREMIUM });
    expect(forwarded.status).to.equal(200);
    expect(forwarded.body.errors[0].message).to.contain('Cannot query field');
    const deeper = `{ transaction ${'{ a '.repeat(20)}${'}'.repeat(20)} }`;
    const tooDeep = await postGraphql(url, { query: deeper }, { 'x-api-key': PREMIUM });
    expect(tooDeep.body.errors[0].message).to.contain('depth 21; your plan allows 20');
    const huge = await postGraphql(url, { query: `${LATEST} ${'#'.repeat(70_000)}` }, { 'x-api-key': PREMIUM });
    expect(huge.status).to.equal(413);
    const big = await postGraphql(url, { query: `${LATEST} ${'#'.repeat(9_000)}` }, { 'x-api-key': FREE });
    expect(big.status).to.equal(413);
    expect(big.body.errors[0].extensions.code).to.equal('QUERY_TOO_LARGE');
  });

  it('relays a graphql-transport-ws subscription with the key in connection_init, charging each subscribe', async () => {
    const before = edge.charged.get(PREMIUM_ID) ?? 0;
    const conn = modernClient(url, { 'x-api-key': PREMIUM });
    const events = conn.subscribe(LATEST_SUB);
    const first = await events.until(() => true);
    await submitFile(chain);
    const newest = chain.transactions().at(-1)!.consensusTimestamp.replace('.', '');
    const next = await events.until((r) => r.data.transaction[0].consensus_timestamp === newest);
    expect(next.data.transaction[0].consensus_timestamp).not.to.equal(first.data.transaction[0].consensus_timestamp);
    expect(edge.charged.get(PREMIUM_ID)).to.equal(before + 1);
    await conn.client.dispose();
  });

  it('relays the legacy graphql-ws protocol, with the key in the path', async () => {
    const conn = legacyClient(`${edge.url}/hedera-testnet/v1/${PREMIUM}/graphql`);
    const events = conn.subscribe(LATEST_SUB);
    await events.until(() => true);
    await submitFile(chain);
    const newest = chain.transactions().at(-1)!.consensusTimestamp.replace('.', '');
    await events.until((r) => r.data.transaction[0].consensus_timestamp === newest);
    conn.close();
  });

  it('accepts the key in the upgrade request headers too, and counts open connections by network only', async () => {
    const conn = modernClient(url, undefined, { 'x-api-key': PREMIUM });
    await conn.subscribe(LATEST_SUB).until(() => true);
    const gauge = await registry.getSingleMetric('gateway_graphql_subscription_connections')!.get();
    expect(gauge.values.find((v) => v.labels.network === 'hedera-testnet')?.value).to.be.greaterThan(0);
    expect(JSON.stringify(gauge)).not.to.contain(PREMIUM);
    await conn.client.dispose();
  });

  it('closes an unauthenticated connection with 4401 and refuses too-deep subscriptions per operation', async () => {
    const anonymous = modernClient(url);
    anonymous.subscribe(LATEST_SUB);
    expect((await anonymous.closed).code).to.equal(4401);

    const conn = modernClient(url, { 'x-api-key': FREE });
    const deep = conn.subscribe('subscription { transaction { a { b { c { d { e { f } } } } } } }');
    const err = await deep.until(() => true).catch((e: Error) => e);
    expect(String((err as Error).message)).to.contain('QUERY_TOO_DEEP');
    await conn.client.dispose();
  });

  it('limits open connections per key to the plan (free: 2)', async () => {
    const { raw } = await edge.addKey('free');
    const a = modernClient(url, { 'x-api-key': raw });
    const b = modernClient(url, { 'x-api-key': raw });
    await a.subscribe(LATEST_SUB).until(() => true);
    await b.subscribe(LATEST_SUB).until(() => true);
    const c = modernClient(url, { 'x-api-key': raw });
    c.subscribe(LATEST_SUB);
    expect((await c.closed).code).to.equal(4429);
    await a.client.dispose();
    await b.client.dispose();
  });

  it('closes open connections with 4403 once the key is revoked', async () => {
    const { raw, id } = await edge.addKey('premium');
    const conn = modernClient(url, { 'x-api-key': raw });
    await conn.subscribe(LATEST_SUB).until(() => true);
    await edge.revoke(id);
    expect(await conn.closed).to.deep.equal({ code: 4403, reason: 'Forbidden: API key revoked' });
  });

  it('closes idle connections but keeps those with a running subscription', async () => {
    const IDLE_MS = 1_000;
    const idleProxy = createGraphqlProxy({
      timeoutMs: 2_000,
      maxPayloadBytes: 1024 * 1024,
      // Long enough for the busy connection's subscribe to follow its init however busy the machine.
      idleTimeoutMs: IDLE_MS,
      server: SERVER,
      upstreams: async () => ({ rpc: [], graphqlUrl: gql.url }),
    });
    const idleEdge = await startTestEdge({ graphql: idleProxy });
    try {
      const idleUrl = `${idleEdge.url}/hedera-testnet/v1/graphql`;
      const idle = modernClient(idleUrl, { 'x-api-key': PREMIUM });
      expect(await idle.closed).to.deep.equal({ code: 1000, reason: 'Idle timeout' });

      const busy = modernClient(idleUrl, { 'x-api-key': PREMIUM });
      const events = busy.subscribe(LATEST_SUB);
      await events.until(() => true);
      // Past the idle timeout: the running subscription kept it open.
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 200));
      await submitFile(chain);
      const newest = chain.transactions().at(-1)!.consensusTimestamp.replace('.', '');
      await events.until((r) => r.data.transaction[0].consensus_timestamp === newest);
      await busy.client.dispose();
    } finally {
      await idleEdge.close();
    }
  });

  it('never passes the client key to the upstream in connection_init', async () => {
    const ws = new WebSocket(`${edge.url.replace('http', 'ws')}/hedera-previewnet/v1/graphql`, 'graphql-transport-ws');
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { 'X-API-KEY': PREMIUM, headers: { Authorization: `Bearer ${PREMIUM}`, other: 1 }, keep: true } }));
    await new Promise((resolve) => ws.once('message', resolve));
    ws.close();
    expect(JSON.parse(recorder.seen[0])).to.deep.equal({ type: 'connection_init', payload: { headers: { other: 1 }, keep: true } });
  });
});
