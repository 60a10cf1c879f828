/**
 * The one admission point: the edge authenticates and charges every request at the cost its handler declares, before
 * the handler runs and, for a key in a header or the path, before the body is read.
 */
import http from 'node:http';
import { expect } from 'chai';
import type { ApiHandler } from '../../src/edge/types.js';
import { GatewayError } from '../../src/errors.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startTestEdge, type TestEdge } from '../support/edge.js';

// A handler that declares no admission does not compile.
// @ts-expect-error admission is required
const undeclared: ApiHandler = { handle: async () => {}, renderError: () => {} };
void undeclared;

/** A REST handler that never thinks about keys or budgets: it answers what it was given. */
const plain: ApiHandler = {
  admission: { key: 'required', cost: 3 },
  async handle(ctx) {
    ctx.res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keyId: ctx.caller?.key.id }));
  },
  renderError(err: GatewayError, ctx) {
    ctx.res.writeHead(err.http, { 'content-type': 'application/json' }).end(JSON.stringify({ _status: { messages: [{ message: err.message }] } }));
  },
};

/** Sends headers and part of a body that is never finished; resolves with the answer the server gives meanwhile. */
function answerBeforeBody(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(4 * 1024 * 1024), ...headers } });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode!, body });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write('[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},');
  });
}

describe('admission at the edge', () => {
  let edge: TestEdge;
  before(async () => {
    edge = await startTestEdge({ rest: plain });
  });
  after(() => edge.close());

  it('authenticates and charges the declared cost for a handler that never asks', async () => {
    const { raw, id } = await edge.addKey('free');
    const res = await fetch(`${edge.url}/hedera-testnet/api/v1/accounts`, { headers: { 'x-api-key': raw } });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ keyId: id });
    expect(edge.charged.get(id)).to.equal(3);
    expect(res.headers.get('ratelimit-remaining')).to.equal('7');
  });

  it('never runs the handler without a key', async () => {
    const res = await fetch(`${edge.url}/hedera-testnet/api/v1/accounts`);
    expect(res.status).to.equal(401);
    expect(((await res.json()) as any)._status.messages[0].message).to.match(/^API key missing/);
  });
});

describe('admission of /rpc through the gateway', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  for (const [name, headers] of [
    ['no key', {}],
    ['an unknown key', { 'x-api-key': 'pk_test_notakey0000000000000000' }],
  ] as const) {
    it(`answers ${name} with 401 before the body has arrived`, async () => {
      const res = await answerBeforeBody(`${gw.gw.url}/ethereum/rpc`, headers);
      expect(res.status).to.equal(401);
      expect(JSON.parse(res.body)).to.deep.include({ jsonrpc: '2.0', id: null });
    });
  }

  it('answers a keyless batch with one error, not one per member', async () => {
    const batch = Array.from({ length: 50 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }));
    const res = await rpc(`${gw.gw.url}/ethereum/rpc`, batch);
    expect(res.status).to.equal(401);
    expect(res.json).to.be.an('object').that.deep.includes({ id: null });
    expect(res.json.error.code).to.equal(-32001);
  });
});

describe('a key out of budget on an API that prepays', () => {
  it('is answered 429 before its body arrives: no read, no parse', async () => {
    const frozen = Date.now();
    const priced: ApiHandler = { ...plain, admission: { key: 'required', prepay: true, costOfBody: () => 1 } };
    const edge = await startTestEdge({ rest: priced }, { now: () => frozen });
    try {
      const { raw, id } = await edge.addKey('free');
      const url = `${edge.url}/hedera-testnet/api/v1/accounts`;
      for (let i = 0; i < 10; i++) expect((await fetch(url, { method: 'POST', headers: { 'x-api-key': raw }, body: '{}' })).status).to.equal(200);
      const refused = await answerBeforeBody(url, { 'x-api-key': raw });
      expect(refused.status).to.equal(429);
      expect(edge.charged.get(id)).to.equal(10);
    } finally {
      await edge.close();
    }
  });
});
