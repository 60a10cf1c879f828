/**
 * A key's view of an EVM chain never goes backwards across two loopback upstreams that lag each other (the lagging
 * one listed first and the faster, so it is asked first whenever nothing says otherwise): eth_blockNumber and `latest` stay at the
 * highest head the key was shown, a block is asked only of an upstream that has it, and a null receipt from the
 * lagging upstream is asked again, once, of the one ahead.
 */
import { expect } from 'chai';
import { defaultChains } from '../../src/config/catalogue.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { EvmStandIn } from '../support/evmStandIn.js';

const hex = (n: number) => `0x${n.toString(16)}`;
const txHash = (block: number) => `0x02${block.toString(16).padStart(62, '0')}`;

describe('one head per key across lagging upstreams', function () {
  this.timeout(60_000);
  let behind: EvmStandIn;
  let ahead: EvmStandIn;
  let t: TestGateway;

  const call = async (key: string, method: string, params: unknown[] = []) =>
    (await rpc(`${t.gw.url}/ethereum-sepolia/v1/${key}/rpc`, { jsonrpc: '2.0', id: 1, method, params })).json;

  before(async () => {
    behind = await EvmStandIn.start({ chainId: 11155111, head: 90 });
    // Slower, so the lagging one is always asked first unless the gateway's head rules say otherwise.
    ahead = await EvmStandIn.start({ chainId: 11155111, head: 100, delayMs: 25 });
    const chains = defaultChains();
    chains.ethereum.networks.sepolia = { chainId: 11155111, upstreams: [behind.url, ahead.url] };
    // Both stay in rotation, however far apart, and no hedge picks the faster one: only the gateway's head rules decide.
    t = await startTestGateway({ chains, upstreamHealth: { probeIntervalMs: 20, hedge: false, maxHeadLagBlocks: 1_000 } });
    await call(t.key, 'eth_chainId');
    await Promise.all([behind.probed(), ahead.probed()]);
  });
  after(async () => {
    await t?.close();
    await behind?.close();
    await ahead?.close();
  });
  afterEach(() => {
    behind.down = false;
    ahead.down = false;
  });

  it('eth_blockNumber never goes backwards for a key when its upstream changes to one that lags', async () => {
    const { key } = await t.newKey();
    behind.down = true;
    expect((await call(key, 'eth_blockNumber')).result).to.equal(hex(100));
    behind.down = false;
    ahead.down = true;
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push((await call(key, 'eth_blockNumber')).result);
    expect(seen).to.deep.equal(Array(5).fill(hex(100)));
    // Another key, never shown block 100, sees the lagging upstream's head as it is.
    expect((await call((await t.newKey()).key, 'eth_blockNumber')).result).to.equal(hex(90));
  });

  it('latest stays at the head the key was shown: its block reads go to the upstream that has it', async () => {
    const { key } = await t.newKey();
    behind.down = true;
    expect((await call(key, 'eth_blockNumber')).result).to.equal(hex(100));
    behind.down = false;
    const before = behind.received.length;
    for (let i = 0; i < 5; i++) expect((await call(key, 'eth_getBlockByNumber', ['latest', false])).result.number).to.equal(hex(100));
    expect(behind.received.slice(before).filter((c) => c.method === 'eth_getBlockByNumber')).to.deep.equal([]);
  });

  it('a block is not asked of an upstream whose head is below it', async () => {
    const calls = await behind.calls('eth_getBlockByNumber', async () => {
      for (let i = 0; i < 5; i++) expect((await call(t.key, 'eth_getBlockByNumber', [hex(95), false])).result.number).to.equal(hex(95));
    });
    expect(calls).to.deep.equal([]);
    // A block both have is asked of the first, as before.
    const both = await behind.calls('eth_getBlockByNumber', () => call(t.key, 'eth_getBlockByNumber', [hex(80), false]));
    expect(both).to.have.length(1);
  });

  it('a null receipt from the lagging upstream is asked again of the one ahead, once', async () => {
    const asked = await behind.calls('eth_getTransactionReceipt', async () => {
      const receipt = (await call(t.key, 'eth_getTransactionReceipt', [txHash(95)])).result;
      expect(receipt).to.include({ transactionHash: txHash(95), blockNumber: hex(95) });
    });
    expect(asked).to.have.length(1);
    // A transaction no upstream has: null, after at most one more upstream was asked.
    const missing = txHash(500);
    const result = await call(t.key, 'eth_getTransactionReceipt', [missing]);
    expect(result.result).to.equal(null);
    const all = [...behind.received, ...ahead.received].filter((c) => c.method === 'eth_getTransactionReceipt' && c.params[0] === missing);
    expect(all).to.have.length(2);
  });
});
