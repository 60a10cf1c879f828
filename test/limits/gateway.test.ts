import { expect } from 'chai';
import { defaultChains, defaultPlans } from '../../src/config/catalogue.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { createLimiter } from '../../src/limits/index.js';
import type { Limiter } from '../../src/limits/types.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { postgresStoreForSuite } from '../support/keyStores.js';
import { needService, needTool, REDIS_URL, TOOLS } from '../support/services.js';
import { eventually, limitsConfig, ManualClock, MapUsageStore, RedisChild } from './support.js';

const NOV_30_LATE = Date.UTC(2026, 10, 30, 23, 59, 50);

/** The catalogue's plans with the Developer plan cut down to `rps`, so a test can drain it in a few calls. */
function plansWith(rps: number, monthlyQuota = 1_000_000): ConfigInput['plans'] {
  const plans = defaultPlans();
  return { ...plans, developer: { ...plans.developer, requestsPerSecond: rps, monthlyQuota } };
}

/** One call to each API the issue names, all on one key. */
function callers(gw: TestGateway, key: string) {
  const base = gw.gw.url;
  const headers = { 'x-api-key': key };
  return {
    evm: () => rpc(`${base}/ethereum/rpc`, '{"jsonrpc":"2.0","id":12345678901234567890,"method":"eth_chainId"}', headers),
    ledger: () => rpc(`${base}/hedera-testnet/rpc`, '{"jsonrpc":"2.0","id":"ledger-1","method":"eth_chainId"}', headers),
    rest: async () => {
      const res = await fetch(`${base}/hedera-testnet/api/v1/blocks?limit=1`, { headers });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
    },
    graphql: () => rpc(`${base}/hedera-testnet/v1/graphql`, { query: '{ __typename }' }, headers),
  };
}

function expectLimitHeaders(headers: Headers, retryAfter?: string) {
  expect(headers.get('ratelimit-limit')).to.match(/^\d+$/);
  expect(headers.get('ratelimit-remaining')).to.match(/^\d+$/);
  expect(headers.get('ratelimit-reset')).to.match(/^\d+$/);
  if (retryAfter) expect(headers.get('retry-after')).to.equal(retryAfter);
}

describe('limits through the gateway', () => {
  // One key store on Postgres for every gateway here: opening the embedded one is most of a gateway's start.
  const store = postgresStoreForSuite();
  const start = (overrides: Partial<ConfigInput>, opts: { limiter?: Limiter } = {}) => startTestGateway(overrides, { ...opts, keyStore: store() });

  describe('one budget per key (frozen clock)', () => {
    let gw: TestGateway;
    let limiter: Limiter;
    let clock: ManualClock;
    before(async () => {
      clock = new ManualClock(Date.UTC(2026, 10, 15, 12, 0, 0));
      limiter = await createLimiter({ limits: limitsConfig({ writesPerSecond: 2 }), usage: new MapUsageStore(), now: clock.now });
      const chains = defaultChains();
      chains.ethereum.networks.sepolia.writesPerSecond = 2;
      gw = await start({ plans: plansWith(8), chains }, { limiter });
    });
    after(async () => {
      await gw?.close();
      await limiter?.close();
    });

    it('interleaved calls to an EVM chain, the ledger chain, REST and GraphQL drain one budget; each API refuses in its own convention', async () => {
      const { key } = await gw.newKey('developer', []);
      const call = callers(gw, key);
      const remaining: string[] = [];
      for (let round = 0; round < 2; round++) {
        for (const api of [call.evm, call.ledger, call.rest, call.graphql]) {
          const res = await api();
          expect(res.status, res.text).to.equal(200);
          expectLimitHeaders(res.headers);
          remaining.push(res.headers.get('ratelimit-remaining')!);
        }
      }
      expect(remaining).to.deep.equal(['7', '6', '5', '4', '3', '2', '1', '0']);

      const evm = await call.evm();
      expect(evm.status).to.equal(429);
      expectLimitHeaders(evm.headers, '1');
      // The id is echoed byte for byte, above 2^53.
      expect(evm.text).to.include('"id":12345678901234567890');
      expect(evm.json.error.code).to.equal(-32005);
      expect(evm.json.error.message).to.match(/limit exceeded/i);

      const ledger = await call.ledger();
      expect(ledger.status).to.equal(429);
      expect(ledger.json).to.deep.include({ id: 'ledger-1' });
      expect(ledger.json.error.code).to.equal(-32005);

      const rest = await call.rest();
      expect(rest.status).to.equal(429);
      expectLimitHeaders(rest.headers, '1');
      expect(rest.json._status.messages[0].message).to.match(/limit exceeded/i);

      const graphql = await call.graphql();
      expect(graphql.status).to.equal(429);
      expectLimitHeaders(graphql.headers, '1');
      expect(graphql.json.errors[0].extensions.code).to.equal('RATE_LIMITED');
    });

    it('charges each call of a JSON-RPC batch', async () => {
      clock.advance(1_000);
      const { key } = await gw.newKey('developer', []);
      const batch = [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId' }));
      const first = await rpc(`${gw.gw.url}/ethereum/rpc`, batch, { 'x-api-key': key });
      expect(first.status).to.equal(200);
      expect(first.headers.get('ratelimit-remaining')).to.equal('5');
      await rpc(`${gw.gw.url}/ethereum/rpc`, batch, { 'x-api-key': key });
      const refused = await rpc(`${gw.gw.url}/ethereum/rpc`, batch, { 'x-api-key': key });
      expect(refused.status).to.equal(429);
      // One error for the refused batch, not one per member: a refusal costs no more to send than the request did.
      expect(refused.json).to.deep.include({ id: null });
      expect(refused.json.error.code).to.equal(-32005);
    });

    const send = (network: string, key: string, id: number) =>
      rpc(`${gw.gw.url}/${network}/rpc`, { jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: ['0x00'] }, { 'x-api-key': key });
    const threeSends = async (network: string, key: string) => [await send(network, key, 1), await send(network, key, 2), await send(network, key, 3)];

    function expectThirdRefused(answers: Awaited<ReturnType<typeof threeSends>>) {
      // Two reach the node (which rejects the junk transaction); the third is refused by the write budget.
      expect(answers.slice(0, 2).map((a) => a.json.error?.code)).not.to.include(-32005);
      expect(answers[2].status).to.equal(429);
      expect(answers[2].json).to.deep.include({ id: 3 });
      expect(answers[2].json.error.code).to.equal(-32005);
      expect(answers[2].json.error.message).to.match(/transaction submissions/);
      expectLimitHeaders(answers[2].headers);
      expect(answers[2].headers.get('retry-after')).to.match(/^\d+$/);
    }

    it('gives the ledger relay\'s eth_sendRawTransaction its own budget unless the key is approved for heavy writes', async () => {
      clock.advance(1_000);
      const { key } = await gw.newKey('developer', []);
      expectThirdRefused(await threeSends('hedera-testnet', key));

      const heavy = await gw.newKey('developer', ['heavy_writes']);
      clock.advance(1_000);
      expect((await threeSends('hedera-testnet', heavy.key)).map((a) => a.json.error?.code)).not.to.include(-32005);
    });

    it('charges an EVM write like any request, unless the operator gave the network a write budget', async () => {
      clock.advance(1_000);
      const { key } = await gw.newKey('developer', []);
      // ethereum (mainnet) has no write budget: the third send within the second reaches the node like the others.
      const free = await threeSends('ethereum', key);
      expect(free.map((a) => [a.status, a.json.error?.code === -32005])).to.deep.equal([
        [200, false],
        [200, false],
        [200, false],
      ]);
      // ethereum-sepolia is configured with writesPerSecond: 2, a budget of its own.
      clock.advance(1_000);
      expectThirdRefused(await threeSends('ethereum-sepolia', key));
    });
  });

  describe('monthly quota', () => {
    it('answers 429 saying the quota is used up, with Retry-After until the month rolls over', async () => {
      const clock = new ManualClock(NOV_30_LATE);
      const limiter = await createLimiter({ limits: limitsConfig(), usage: new MapUsageStore(), now: clock.now });
      const gw = await start({ plans: plansWith(100, 2) }, { limiter });
      try {
        const { key } = await gw.newKey('developer', []);
        const call = callers(gw, key);
        expect((await call.evm()).status).to.equal(200);
        expect((await call.rest()).status).to.equal(200);
        const refused = await call.evm();
        expect(refused.status).to.equal(429);
        expect(refused.headers.get('retry-after')).to.equal('10');
        expect(refused.json.error.message).to.match(/monthly quota/);
        clock.ms = Date.UTC(2026, 11, 1);
        expect((await call.evm()).status).to.equal(200);
      } finally {
        await gw.close();
        await limiter.close();
      }
    });
  });

  describe('ledger relay access by plan', () => {
    for (const phase of ['beta', 'ga'] as const) {
      it(`in ${phase}, answers 403 naming what includes the relay`, async () => {
        const gw = await start({ limits: { relayPhase: phase } });
        try {
          const ask = (key: string) => rpc(`${gw.gw.url}/hedera-testnet/rpc`, { jsonrpc: '2.0', id: 7, method: 'eth_chainId' }, { 'x-api-key': key });
          const free = await ask((await gw.newKey('free', [])).key);
          expect(free.status).to.equal(403);
          // Refused before the body is read, so with JSON-RPC's null id.
          expect(free.json).to.deep.include({ id: null });
          expect(free.json.error.code).to.equal(-32003);
          expect(free.json.error.message).to.include(phase === 'beta' ? 'relay_beta' : 'Developer, Startup, Premium and Enterprise');
          const allowed = phase === 'beta' ? await gw.newKey('free', ['relay_beta']) : await gw.newKey('developer', []);
          expect((await ask(allowed.key)).status).to.equal(200);
          // The same free key still has every other API of its plan.
          expect((await rpc(`${gw.gw.url}/ethereum/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, { 'x-api-key': (await gw.newKey('free', [])).key })).status).to.equal(200);
        } finally {
          await gw.close();
        }
      });
    }
  });

  describe('Redis stopped mid-test (a private redis-server)', () => {
    let redis: RedisChild;
    before(async function () {
      needTool(this, TOOLS.redisServer);
      redis = await RedisChild.start();
    });
    after(() => redis?.down());

    it('fail-closed answers 503 in the API convention while Redis is down, and serves again when it returns', async () => {
      const gw = await start({ limits: { redisUrl: redis.url, redisFailure: 'fail-closed' } });
      try {
        const { key } = await gw.newKey('developer', []);
        const ask = () => rpc(`${gw.gw.url}/ethereum/rpc`, { jsonrpc: '2.0', id: 'r1', method: 'eth_chainId' }, { 'x-api-key': key });
        expect((await ask()).status).to.equal(200);
        await redis.down();
        const down = await ask();
        expect(down.status).to.equal(503);
        expect(down.headers.get('retry-after')).to.equal('1');
        expect(down.json).to.deep.include({ id: 'r1' });
        expect(down.json.error.message).to.match(/rate limiter unavailable/i);
        await redis.up();
        await eventually(async () => (await ask()).status === 200, 'the gateway to use Redis again');
      } finally {
        await gw.close();
      }
    });

    it('fail-open keeps serving within a local budget while Redis is down', async () => {
      // One request per five seconds: the second, right after the first, is refused by the local limiter.
      const gw = await start({ plans: plansWith(0.2), limits: { redisUrl: redis.url, redisFailure: 'fail-open' } });
      try {
        const { key } = await gw.newKey('developer', []);
        const ask = () => rpc(`${gw.gw.url}/ethereum/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, { 'x-api-key': key });
        await redis.down();
        expect((await ask()).status).to.equal(200);
        expect((await ask()).status).to.equal(429);
        await redis.up();
      } finally {
        await gw.close();
      }
    });
  });

  describe('two instances on one Redis share a budget', () => {
    before(async function () {
      await needService(this, 'Redis', 6379);
    });

    it('admits, across both, exactly the budget of one key: the burst at once, then the rate as time passes', async () => {
      const rps = 10;
      // One clock for both instances (as synchronised hosts have), stopped so each decision is exact, not a race with time.
      const clock = new ManualClock(Date.UTC(2026, 10, 15, 12, 0, 0));
      const limiters = [0, 1].map(() => createLimiter({ limits: limitsConfig({ redisUrl: REDIS_URL }), usage: new MapUsageStore(), now: clock.now }));
      const [la, lb] = await Promise.all(limiters);
      const a = await start({ plans: plansWith(rps) }, { limiter: la });
      const b = await start({ plans: plansWith(rps) }, { limiter: lb });
      try {
        expect([la.backend, lb.backend]).to.deep.equal(['redis', 'redis']);
        const { key } = await a.newKey('developer', []);
        const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}';
        /** Four times the plan's rate at one instant, alternating between the instances; returns how many were admitted. */
        const rush = async () => {
          const answers = await Promise.all(Array.from({ length: 4 * rps }, (_, i) => rpc(`${[a, b][i % 2].gw.url}/ethereum/rpc`, body, { 'x-api-key': key })));
          for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 429]);
          return answers.filter((res) => res.status === 200).length;
        };
        expect(await rush(), 'one second\'s burst').to.equal(rps);
        clock.advance(500);
        expect(await rush(), 'half a second\'s rate').to.equal(rps / 2);
        clock.advance(3_000);
        expect(await rush(), 'a full burst again, not more').to.equal(rps);
      } finally {
        await b.close();
        await a.close();
        await Promise.all([la.close(), lb.close()]);
      }
    });
  });
});
