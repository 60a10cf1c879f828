/**
 * JSON-RPC over WebSocket on /rpc, through a real gateway on loopback: the same answers as HTTP, eth_subscribe and its
 * bounds (subscriptions per socket, sockets per key, slow readers, idle sockets, revoked keys, the monthly quota,
 * shutdown), one follower per network however many subscribe, and a thousand idle sockets in one process.
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { defaultChains, defaultPlans } from '../../src/config/catalogue.js';
import { registry } from '../../src/metrics.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { UpstreamProxy } from '../support/upstreamProxy.js';
import { deployCounter, valueOf } from './counter.js';
import { Client } from './wsClient.js';

const TEST_PLANS = {
  ...defaultPlans(),
  tiny: { requestsPerSecond: 1_000, monthlyQuota: 1_000_000, apis: ['rpc' as const], maxSockets: 2, maxSubscriptionsPerSocket: 2 },
  roomy: { requestsPerSecond: 1_000, monthlyQuota: 1_000_000, apis: ['rpc' as const], maxSockets: 4, maxSubscriptionsPerSocket: 4 },
  metered: { requestsPerSecond: 1_000, monthlyQuota: 15, apis: ['rpc' as const] },
  trickle: { requestsPerSecond: 0.001, monthlyQuota: 1_000_000, apis: ['rpc' as const] },
  restonly: { requestsPerSecond: 1_000, monthlyQuota: 1_000_000, apis: ['rest' as const] },
};

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const found = await registry.getSingleMetric(name)?.get();
  return (found?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((sum, v) => sum + v.value, 0);
}

/**
 * Stops reading on `client` and sends it requests whose answers (or refusals) echo a 700 KB id, until the gateway
 * closes it as a slow reader. eth_chainId is answered without an upstream, so the answers are large and cheap however
 * busy the machine; they are sent until the close is counted, whatever the loopback buffers hold first.
 */
async function readNothingUntilCutOff(client: Client): Promise<void> {
  const slowReaders = () => metric('gateway_rpc_websocket_closes_total', { reason: 'slow_reader' });
  const before = await slowReaders();
  (client.ws as any)._socket.pause();
  const id = 'x'.repeat(700_000);
  for (let sent = 0; (await slowReaders()) === before; sent++) {
    expect(sent, 'answers sent before the slow reader was noticed').to.be.below(100);
    client.ws.send(JSON.stringify({ jsonrpc: '2.0', id: `${sent}${id}`, method: 'eth_chainId', params: [] }));
    await sleep(10);
  }
  (client.ws as any)._socket.resume();
}

const REQUEST_ID = /^\[Request ID: [0-9a-f-]{36}\] /;
/** On the ledger a WebSocket error names its request first, as the official relay's do; the rest is HTTP's answer. */
function sameAsHttp(network: string, answer: any): any {
  if (Array.isArray(answer)) return answer.map((a) => sameAsHttp(network, a));
  if (!answer.error) return answer;
  if (network !== 'hedera-testnet') {
    expect(answer.error.message).not.to.match(REQUEST_ID);
    return answer;
  }
  expect(answer.error.message).to.match(REQUEST_ID);
  return { ...answer, error: { ...answer.error, message: answer.error.message.replace(REQUEST_ID, '') } };
}

const wsUrl = (t: TestGateway, network: string, key = t.key) => `${t.gw.url.replace(/^http/, 'ws')}/${network}/v1/${key}/rpc`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('JSON-RPC over WebSocket', function () {
  this.timeout(120_000);
  let t: TestGateway;
  let devnet: string;

  before(async () => {
    t = await startTestGateway({
      plans: TEST_PLANS,
      keys: { cacheTtlMs: 300 },
      live: { pollIntervalMs: 50 },
      server: { wsMaxBufferedBytes: 256 * 1024, wsPingIntervalMs: 3_000, subscriptionIdleTimeoutMs: 1_000 },
    });
    [devnet] = (await t.gw.local!.upstreams(t.gw.router.network('ethereum-sepolia')!)).rpc;
  });
  after(() => t?.close());

  const mine = () => rpc(devnet, { jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] });

  for (const network of ['hedera-testnet', 'ethereum-sepolia']) {
    it(`answers requests and batches on ${network} exactly as HTTP does, key in the path or a header, host or path routing`, async () => {
      const batch = [
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: '12345678901234567890', method: 'eth_getBlockByNumber', params: ['0x0', false] },
        { jsonrpc: '2.0', id: 3, method: 'no_suchMethod', params: [] },
        { jsonrpc: '1.0', id: 4, method: 'eth_chainId' },
        { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
      ];
      const http = await rpc(`${t.gw.url}/${network}/v1/${t.key}/rpc`, batch);
      const host = new URL(t.gw.url).port;
      for (const [url, headers] of [
        [wsUrl(t, network), {}],
        [`${t.gw.url.replace(/^http/, 'ws')}/${network}/rpc`, { 'x-api-key': t.key }],
        [`ws://127.0.0.1:${host}/rpc`, { host: `${network}.localhost:${host}`, authorization: `Bearer ${t.key}` }],
      ] as const) {
        const client = await Client.open(url, headers);
        expect(sameAsHttp(network, await client.send(batch))).to.deep.equal(http.json);
        expect(sameAsHttp(network, await client.send('{not json'))).to.deep.equal((await rpc(`${t.gw.url}/${network}/v1/${t.key}/rpc`, '{not json')).json);
        client.close();
      }
    });
  }

  it('a socket opened without a key gets -32001 for its first message, then closes with 4401 saying why', async () => {
    const client = await Client.open(`${t.gw.url.replace(/^http/, 'ws')}/ethereum-sepolia/rpc`);
    const answer = await client.call('eth_chainId');
    expect(answer).to.deep.include({ id: 1 });
    expect(answer.error.code).to.equal(-32001);
    expect(answer.error.message).to.include('API key missing');
    expect(await client.closed).to.deep.equal({ code: 4401, reason: 'API key missing: send it in a header or in the path (/v1/<key>/rpc)' });
    expect(client.messages).to.have.length(1);
  });

  it('newHeads: every block once, in order; eth_unsubscribe stops them; an unknown id is "subscription not found"', async () => {
    const client = await Client.open(wsUrl(t, 'ethereum-sepolia'));
    const id = (await client.call('eth_subscribe', ['newHeads'])).result;
    const mined = [];
    for (let i = 0; i < 3; i++) {
      await mine();
      mined.push((await rpc(devnet, { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] })).json.result.hash);
    }
    await client.until(() => (client.notifications(id).length >= 3 ? true : undefined));
    expect(client.notifications(id).map((h) => h.hash)).to.deep.equal(mined);
    expect(client.notifications(id)[0]).to.include.keys('number', 'parentHash', 'timestamp', 'logsBloom');
    expect((await client.call('eth_unsubscribe', [id])).result).to.equal(true);
    await mine();
    await sleep(300);
    expect(client.notifications(id)).to.have.length(3);
    expect((await client.call('eth_unsubscribe', [id])).error).to.deep.include({ code: -32000, message: 'subscription not found' });
    client.close();
  });

  it('logs: only the matching logs, once each, in order', async () => {
    const url = `${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`;
    const c = await deployCounter(url, 2);
    const client = await Client.open(wsUrl(t, 'ethereum-sepolia'));
    try {
      const all = (await client.call('eth_subscribe', ['logs', { address: c.address }])).result;
      const seven = (await client.call('eth_subscribe', ['logs', { address: c.address, topics: [c.topic, null, `0x${7n.toString(16).padStart(64, '0')}`] }])).result;
      for (const v of [5n, 7n, 9n]) await c.set(v);
      await client.until(() => (client.notifications(all).length >= 3 ? true : undefined));
      await sleep(200);
      expect(client.notifications(all).map(valueOf)).to.deep.equal([5n, 7n, 9n]);
      expect(client.notifications(seven).map(valueOf)).to.deep.equal([7n]);
    } finally {
      c.close();
      client.close();
    }
  });

  it("subscriptions per socket and sockets per key are bounded by the plan, with clear errors", async () => {
    const { key } = await t.newKey('tiny');
    const [a, b] = [await Client.open(wsUrl(t, 'ethereum-sepolia', key)), await Client.open(wsUrl(t, 'ethereum-sepolia', key))];
    const third = await Client.open(wsUrl(t, 'ethereum-sepolia', key));
    expect(await third.closed).to.deep.equal({ code: 4429, reason: 'Limit exceeded: open JSON-RPC WebSockets for this key: your tiny plan allows 2' });
    const first = (await a.call('eth_subscribe', ['newHeads'])).result;
    await a.call('eth_subscribe', ['newHeads']);
    const refused = (await a.call('eth_subscribe', ['newHeads'])).error;
    expect(refused).to.deep.equal({ code: -32005, message: 'Limit exceeded: subscriptions on this WebSocket: your tiny plan allows 2' });
    await a.call('eth_unsubscribe', [first]);
    expect((await a.call('eth_subscribe', ['newHeads'])).result).to.match(/^0x/);
    a.close();
    await a.closed;
    const again = await Client.open(wsUrl(t, 'ethereum-sepolia', key));
    expect((await again.call('eth_chainId')).result).to.equal('0xaa36a7');
    for (const c of [b, again]) c.close();
  });

  it('a reader that never reads is closed with 4008 once its unsent bytes pass the bound, and other sockets carry on', async () => {
    const good = await Client.open(wsUrl(t, 'ethereum-sepolia'));
    const heads = (await good.call('eth_subscribe', ['newHeads'])).result;
    const slow = await Client.open(wsUrl(t, 'ethereum-sepolia'));
    await readNothingUntilCutOff(slow);
    expect(await slow.closed).to.deep.equal({ code: 4008, reason: `Slow reader: more than ${256 * 1024} bytes unread` });
    await mine();
    await good.until(() => (good.notifications(heads).length > 0 ? true : undefined));
    expect((await good.call('eth_chainId')).result).to.equal('0xaa36a7');
    good.close();
  });

  it('the slow-reader bound holds for refused messages too: a client over its budget that reads nothing is closed', async () => {
    const { key } = await t.newKey('trickle');
    const slow = await Client.open(wsUrl(t, 'ethereum-sepolia', key));
    // One request in a thousand seconds, less than one: every message is refused with -32005, echoing its id.
    await readNothingUntilCutOff(slow);
    expect(await slow.closed).to.deep.equal({ code: 4008, reason: `Slow reader: more than ${256 * 1024} bytes unread` });
  });

  it("a revoked key's sockets are closed with 4403", async () => {
    const { key, id } = await t.newKey();
    const client = await Client.open(wsUrl(t, 'hedera-testnet', key));
    await client.call('eth_subscribe', ['newHeads']);
    await t.gw.keyStore.revoke(id);
    expect((await client.closed).code).to.equal(4403);
  });

  it("a plan change reaches open sockets: debug methods are refused after a downgrade, a plan without rpc closes them with 4403", async () => {
    const { key, id } = await t.newKey('premium');
    const client = await Client.open(wsUrl(t, 'ethereum-sepolia', key));
    const trace = () => client.call('debug_traceTransaction', [`0x${'00'.repeat(32)}`]);
    expect((await trace()).error?.code, 'premium: the call goes upstream').to.not.equal(-32003);
    await t.gw.keyStore.setPlan(id, 'free');
    // The key is checked again every keys.cacheTtlMs (300 ms here); well within 50 calls 100 ms apart.
    let answer = await trace();
    for (let tries = 0; answer.error?.code !== -32003 && tries < 50; tries++) {
      await sleep(100);
      answer = await trace();
    }
    expect(answer.error).to.deep.equal({
      code: -32003,
      message: 'Your plan does not include the debug_ and trace_ methods: debug_traceTransaction: they are included in the Premium and Enterprise plans; this key is on the Free plan',
    });
    await t.gw.keyStore.setPlan(id, 'restonly');
    expect(await client.closed).to.deep.equal({ code: 4403, reason: 'Your plan does not include this API: the restonly plan does not include rpc' });
  });

  it('a downgrade reaches open sockets: the newest sockets and subscriptions past the new plan\'s bounds close and stop', async () => {
    const { key, id } = await t.newKey('roomy');
    const [a, b, c, d] = await Promise.all([1, 2, 3, 4].map(() => Client.open(wsUrl(t, 'ethereum-sepolia', key))));
    const subs: string[] = [];
    for (let i = 0; i < 4; i++) subs.push((await a.call('eth_subscribe', ['newHeads'])).result);
    // A subscription keeps c and d from closing as idle, so their close is the plan's.
    for (const busy of [c, d]) await busy.call('eth_subscribe', ['newHeads']);
    const running = () => metric('gateway_rpc_subscriptions', { network: 'ethereum-sepolia' });
    const [runningBefore, closedBefore] = [await running(), await metric('gateway_rpc_websocket_closes_total', { reason: 'plan' })];
    await t.gw.keyStore.setPlan(id, 'tiny');
    const overCap = { code: 4429, reason: 'Limit exceeded: open JSON-RPC WebSockets for this key: your tiny plan allows 2' };
    expect(await c.closed).to.deep.equal(overCap);
    expect(await d.closed).to.deep.equal(overCap);
    expect(await metric('gateway_rpc_websocket_closes_total', { reason: 'plan' })).to.equal(closedBefore + 2);
    // Socket a applies the plan to its subscriptions at its own next check of the key (every keys.cacheTtlMs): two stop
    // there, and c's and d's ended with them.
    for (let tries = 0; (await running()) > runningBefore - 4 && tries < 50; tries++) await sleep(100);
    expect(await running()).to.equal(runningBefore - 4);
    for (const stopped of subs.slice(2)) expect((await a.call('eth_unsubscribe', [stopped])).error).to.deep.equal({ code: -32000, message: 'subscription not found' });
    expect((await a.call('eth_subscribe', ['newHeads'])).error).to.deep.equal({ code: -32005, message: 'Limit exceeded: subscriptions on this WebSocket: your tiny plan allows 2' });
    expect((await a.call('eth_unsubscribe', [subs[0]])).result).to.equal(true);
    expect((await b.call('eth_chainId')).result).to.equal('0xaa36a7');
    for (const open of [a, b]) open.close();
  });

  it('an idle socket with no subscription is closed; one with a subscription stays open', async () => {
    const idle = await Client.open(wsUrl(t, 'ethereum-sepolia'));
    const busy = await Client.open(wsUrl(t, 'ethereum-sepolia'));
    await busy.call('eth_subscribe', ['newHeads']);
    expect(await idle.closed).to.deep.equal({ code: 1000, reason: 'Idle timeout' });
    expect(busy.ws.readyState).to.equal(WebSocket.OPEN);
    busy.close();
  });

  it('a socket waiting for an answer is not idle, however long the answer takes', async () => {
    // An upstream slower than the idle timeout and several pings together.
    const slowUpstream = await UpstreamProxy.start(devnet);
    slowUpstream.delayMs = 1_500;
    const chains = defaultChains();
    chains.ethereum.networks.sepolia.upstreams = [slowUpstream.url];
    const front = await startTestGateway({ chains, server: { subscriptionIdleTimeoutMs: 200, wsPingIntervalMs: 300 } });
    try {
      const client = await Client.open(wsUrl(front, 'ethereum-sepolia'));
      expect((await client.call('eth_gasPrice')).result).to.match(/^0x/);
      expect(client.ws.readyState).to.equal(WebSocket.OPEN);
      // Idle once answered: closed after the timeout.
      expect(await client.closed).to.deep.equal({ code: 1000, reason: 'Idle timeout' });
    } finally {
      await front.close();
      await slowUpstream.close();
    }
  });

  it('notifications count against the monthly quota: the socket closes with 4429 once it is used up', async () => {
    const { key } = await t.newKey('metered');
    const client = await Client.open(wsUrl(t, 'ethereum-sepolia', key));
    await client.call('eth_subscribe', ['newHeads']);
    const closed = client.closed;
    let done = false;
    void closed.then(() => (done = true));
    while (!done) {
      await mine();
      await sleep(20);
    }
    expect(await closed).to.deep.equal({ code: 4429, reason: 'Monthly quota exhausted' });
    // The subscription (1) and 14 or more notifications used the quota of 15: requests are refused now.
    const refused = await rpc(`${t.gw.url}/ethereum-sepolia/v1/${key}/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    expect(refused.status).to.equal(429);
  });

  it('100 logs subscribers on the ledger are fed by one follower: the mirror node is asked for logs as often as for one', async () => {
    const url = `${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`;
    const c = await deployCounter(url, 1);
    const getLogsCalls = () => metric('gateway_relay_calls_total', { network: 'hedera-testnet', method: 'eth_getLogs' });
    const round = async (subscribers: number, value: bigint) => {
      const clients = await Promise.all(Array.from({ length: subscribers }, () => Client.open(wsUrl(t, 'hedera-testnet'))));
      const ids = await Promise.all(clients.map(async (cl) => (await cl.call('eth_subscribe', ['logs', { address: c.address }])).result));
      const before = await getLogsCalls();
      await c.set(value);
      await Promise.all(clients.map((cl, i) => cl.until(() => (cl.notifications(ids[i]).length > 0 ? true : undefined))));
      const calls = (await getLogsCalls()) - before;
      for (const [i, cl] of clients.entries()) expect(cl.notifications(ids[i]).map(valueOf)).to.deep.equal([value]);
      clients.forEach((cl) => cl.close());
      return calls;
    };
    try {
      const one = await round(1, 1n);
      const hundred = await round(100, 2n);
      expect(one).to.be.greaterThan(0);
      expect(hundred).to.equal(one);
    } finally {
      c.close();
    }
  });

  it("on an EVM network with wsUpstreams, the upstream's newHeads wakes the follower (no head polling needed)", async () => {
    const chains = defaultChains();
    chains.ethereum.networks.sepolia.upstreams = [devnet];
    // The upstream WebSocket is this suite's gateway, which serves the same devnet.
    chains.ethereum.networks.sepolia.wsUpstreams = [wsUrl(t, 'ethereum-sepolia')];
    const front = await startTestGateway({ chains, live: { pollIntervalMs: 600_000 } });
    try {
      const client = await Client.open(wsUrl(front, 'ethereum-sepolia'));
      const id = (await client.call('eth_subscribe', ['newHeads'])).result;
      // Until the upstream subscription is up, nothing but the (ten-minute) poll would move the follower.
      for (;;) {
        await mine();
        await sleep(100);
        if (client.notifications(id).length > 0) break;
      }
      const seen = client.notifications(id).length;
      await mine();
      await client.until(() => (client.notifications(id).length > seen ? true : undefined));
      const numbers = client.notifications(id).map((h) => Number(BigInt(h.number)));
      expect(numbers).to.deep.equal(numbers.map((_, i) => numbers[0] + i));
      client.close();
    } finally {
      await front.close();
    }
  });

  it('a socket that does not answer pings is cut off', async () => {
    const ws = new WebSocket(wsUrl(t, 'ethereum-sepolia'), { autoPong: false });
    const client = new Client(ws);
    await new Promise((resolve) => ws.once('open', resolve));
    await client.call('eth_subscribe', ['newHeads']);
    expect((await client.closed).code).to.equal(1006);
  });

  it('one process holds 1,000 idle sockets and answers on each; shutdown closes them all with 1001', async () => {
    // The thousand sockets stand for a thousand clients, here all on one loopback address: no per-address bound.
    const other = await startTestGateway({ server: { maxConnectionsPerClient: 0 } });
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 10; i++) clients.push(...(await Promise.all(Array.from({ length: 100 }, () => Client.open(wsUrl(other, 'ethereum-sepolia'))))));
      expect(await metric('gateway_rpc_websockets', { network: 'ethereum-sepolia' })).to.be.at.least(1_000);
      const answers = await Promise.all(clients.map((c) => c.call('eth_chainId')));
      expect(answers.every((a) => a.result === '0xaa36a7')).to.equal(true);
      await clients[0].call('eth_subscribe', ['newHeads']);
      await other.close();
      const codes = await Promise.all(clients.map((c) => c.closed));
      expect(codes.every((c) => c.code === 1001)).to.equal(true);
    } finally {
      clients.forEach((c) => c.ws.terminate());
      await other.close();
    }
  });
});
