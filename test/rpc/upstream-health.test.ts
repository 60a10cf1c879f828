/**
 * Healthy upstreams first: real HTTP upstreams on loopback, each in front of a real EVM devnet, that stall, reset
 * connections, lag behind the best head or answer for another chain.
 */
import { expect } from 'chai';
import type { Gauge, Counter } from 'prom-client';
import { upstreamChainMismatch, upstreamHedges, upstreamInRotation } from '../../src/metrics.js';
import { startDevnet, type Devnet } from '../../packages/sandbox/src/devnet.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { UpstreamProxy } from '../support/upstreamProxy.js';

const CHAIN_ID = 11155111;
const NETWORK = 'ethereum-sepolia';

async function metricValue(metric: Counter | Gauge, labels: Record<string, string>): Promise<number> {
  const { values } = await metric.get();
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
}

/** Polls until `check` holds; probes run every 100 ms here. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describe('EVM upstream health: scoring, ejection, hedging, chain id check', function () {
  this.timeout(60_000);
  let ahead: Devnet;
  let behind: Devnet;
  const proxies: UpstreamProxy[] = [];
  const gateways: TestGateway[] = [];

  before(async () => {
    [ahead, behind] = await Promise.all([startDevnet({ chainId: CHAIN_ID }), startDevnet({ chainId: CHAIN_ID })]);
  });
  // Gauges are labelled by network, which every gateway here shares: one gateway at a time.
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.close()));
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });
  after(() => Promise.all([ahead?.close(), behind?.close()]));

  async function proxy(target: Devnet): Promise<UpstreamProxy> {
    const p = await UpstreamProxy.start(target.url);
    proxies.push(p);
    return p;
  }

  async function gatewayWith(upstreams: UpstreamProxy[], timeoutMs = 10_000): Promise<{ call: (method: string, params?: unknown[]) => ReturnType<typeof rpc> }> {
    const urls = upstreams.map((u) => u.url);
    const t = await startTestGateway({
      server: { upstreamTimeoutMs: timeoutMs },
      upstreamHealth: { probeIntervalMs: 100, maxHeadLagBlocks: 5, failuresBeforeEjection: 3, hedgeMinDelayMs: 20 },
      chains: { ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1 }, sepolia: { chainId: CHAIN_ID, upstreams: urls } } } },
    });
    gateways.push(t);
    return { call: (method, params = []) => rpc(`${t.gw.url}/${NETWORK}/rpc`, { jsonrpc: '2.0', id: 1, method, params }, { 'x-api-key': t.key }) };
  }

  const calls = (p: UpstreamProxy, method: string) => p.methods().filter((m) => m === method).length;
  const inRotation = async (upstream: string) => (await metricValue(upstreamInRotation, { network: NETWORK, upstream })) === 1;

  it('refuses an upstream that answers eth_chainId for another chain at start-up: logged, counted, never used', async () => {
    const wrong = await proxy(ahead);
    wrong.chainId = '0x1';
    const right = await proxy(ahead);
    const before = await metricValue(upstreamChainMismatch, { network: NETWORK, upstream: 'rpc0' });
    const gw = await gatewayWith([wrong, right]);
    expect((await gw.call('eth_blockNumber')).json.result).to.match(/^0x[0-9a-f]+$/);
    await eventually(async () => (await metricValue(upstreamChainMismatch, { network: NETWORK, upstream: 'rpc0' })) === before + 1, 'mismatch counted');
    for (let i = 0; i < 5; i++) expect((await gw.call('eth_blockNumber')).json.result).to.match(/^0x[0-9a-f]+$/);
    // Checked once, refused for good: no probe asks it again, no request reaches it.
    expect(calls(wrong, 'eth_chainId')).to.equal(1);
    expect(calls(wrong, 'eth_blockNumber')).to.equal(0);
    expect(calls(right, 'eth_blockNumber')).to.be.at.least(5);
  });

  it('takes an upstream that resets connections out of rotation after repeated failures, and back once it recovers', async () => {
    const flaky = await proxy(ahead);
    const steady = await proxy(ahead);
    // The steady one is slower, so the flaky one is first while healthy.
    steady.delayMs = 100;
    const gw = await gatewayWith([flaky, steady]);
    await eventually(async () => (await inRotation('rpc0')) && inRotation('rpc1'), 'both confirmed');
    flaky.fault = 'reset';
    for (let i = 0; i < 8; i++) {
      const res = await gw.call('eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']);
      expect(res.json, res.text).to.have.property('result');
    }
    await eventually(async () => (await metricValue(upstreamInRotation, { network: NETWORK, upstream: 'rpc0' })) === 0, 'flaky upstream out of rotation');
    const triedWhileOut = calls(flaky, 'eth_getBalance');
    for (let i = 0; i < 5; i++) await gw.call('eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']);
    expect(calls(flaky, 'eth_getBalance'), 'no requests while out of rotation').to.equal(triedWhileOut);

    flaky.fault = 'none';
    await eventually(async () => (await metricValue(upstreamInRotation, { network: NETWORK, upstream: 'rpc0' })) === 1, 'flaky upstream back in rotation');
    await eventually(async () => {
      const before = calls(flaky, 'eth_getBalance');
      await gw.call('eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']);
      return calls(flaky, 'eth_getBalance') > before;
    }, 'recovered upstream serves again');
  });

  it('takes an upstream that lags the best head by more than the configured blocks out of rotation until it catches up', async () => {
    const lagging = await proxy(behind);
    const current = await proxy(ahead);
    current.delayMs = 100;
    const gw = await gatewayWith([lagging, current]);
    await eventually(async () => (await inRotation('rpc0')) && inRotation('rpc1'), 'both confirmed');
    for (let i = 0; i < 10; i++) await ahead.evm.request({ method: 'evm_mine' });
    await eventually(async () => (await metricValue(upstreamInRotation, { network: NETWORK, upstream: 'rpc0' })) === 0, 'lagging upstream out of rotation');
    const head = (await ahead.evm.request({ method: 'eth_blockNumber' })) as string;
    for (let i = 0; i < 5; i++) expect((await gw.call('eth_blockNumber')).json.result).to.equal(head);

    for (let i = 0; i < 10; i++) await behind.evm.request({ method: 'evm_mine' });
    await eventually(async () => (await metricValue(upstreamInRotation, { network: NETWORK, upstream: 'rpc0' })) === 1, 'caught-up upstream back in rotation');
  });

  it('hedges a read to the next upstream when the first stalls: the first answer wins', async () => {
    const stalling = await proxy(ahead);
    const backup = await proxy(ahead);
    backup.delayMs = 200;
    const gw = await gatewayWith([stalling, backup], 30_000);
    await eventually(async () => (await inRotation('rpc0')) && inRotation('rpc1'), 'both confirmed');
    // Latency of the first upstream is known from its chain id check and a few reads.
    for (let i = 0; i < 5; i++) await gw.call('eth_gasPrice');
    const hedgesBefore = await metricValue(upstreamHedges, { network: NETWORK });
    const [stalledBefore, backupBefore] = [calls(stalling, 'eth_gasPrice'), calls(backup, 'eth_gasPrice')];
    stalling.fault = 'stall';
    const res = await gw.call('eth_gasPrice');
    expect(res.json, res.text).to.have.property('result');
    expect(await metricValue(upstreamHedges, { network: NETWORK })).to.equal(hedgesBefore + 1);
    expect([calls(stalling, 'eth_gasPrice') - stalledBefore, calls(backup, 'eth_gasPrice') - backupBefore]).to.deep.equal([1, 1]);
  });

  it('never hedges a transaction submission', async () => {
    const stalling = await proxy(ahead);
    const backup = await proxy(ahead);
    backup.delayMs = 200;
    const gw = await gatewayWith([stalling, backup], 1_000);
    // Both confirmed, so the submission goes to the stalling one first and fails over, whichever confirmed first.
    await eventually(async () => (await inRotation('rpc0')) && inRotation('rpc1'), 'both confirmed');
    for (let i = 0; i < 5; i++) await gw.call('eth_gasPrice');
    const hedgesBefore = await metricValue(upstreamHedges, { network: NETWORK });
    stalling.fault = 'stall';
    // After the stalled attempt times out the submission fails over (a signed transaction sent twice is one transaction).
    const res = await gw.call('eth_sendRawTransaction', ['0x00']);
    expect(res.json).to.have.property('error');
    expect(await metricValue(upstreamHedges, { network: NETWORK })).to.equal(hedgesBefore);
    expect([calls(stalling, 'eth_sendRawTransaction'), calls(backup, 'eth_sendRawTransaction')]).to.deep.equal([1, 1]);
  });
});
