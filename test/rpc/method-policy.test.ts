import { expect } from 'chai';
import { startDevnet, type Devnet } from '../../packages/sandbox/src/devnet.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { UpstreamProxy } from '../support/upstreamProxy.js';

const ACCOUNT = '0x00000000000000000000000000000000000000aa';

describe('EVM method policy (real EVM behind a recording upstream)', () => {
  let devnet: Devnet;
  let upstream: UpstreamProxy;
  let t: TestGateway;
  let developer: string;
  let premium: string;

  before(async () => {
    devnet = await startDevnet({ chainId: 11155111 });
    upstream = await UpstreamProxy.start(devnet.url);
    t = await startTestGateway({
      // The gateway's own head probes would interleave with the calls these tests count.
      upstreamHealth: { probeIntervalMs: 3_600_000 },
      chains: {
        ethereum: {
          displayName: 'Ethereum',
          networks: {
            mainnet: { chainId: 11155111, upstreams: [upstream.url] },
            // The operator opens the dev-node namespace on this network only.
            sepolia: { chainId: 11155111, upstreams: [upstream.url], methods: { open: ['hardhat_*'], close: ['eth_getStorageAt'] } },
          },
        },
      },
    });
    developer = (await t.newKey('developer', [])).key;
    premium = (await t.newKey('premium', [])).key;
  });
  after(async () => {
    await t?.close();
    await upstream?.close();
    await devnet?.close();
  });

  /** What reached the node since `from`, without the gateway's start-up chain id checks. */
  const forwarded = (from: number) => upstream.methods().slice(from).filter((m) => m !== 'eth_chainId');
  const call = (network: string, key: string, method: string, params: unknown[] = [], id: unknown = 1) =>
    rpc(`${t.gw.url}/${network}/rpc`, { jsonrpc: '2.0', id, method, params }, { 'x-api-key': key });

  it('answers -32601 naming the method, with nothing forwarded, for admin, key-holding and dev-node methods', async () => {
    const refused: Array<[string, unknown[]]> = [
      ['hardhat_setBalance', [ACCOUNT, '0x1000']],
      ['admin_peers', []],
      ['evm_mine', []],
      ['anvil_setBalance', [ACCOUNT, '0x1']],
      ['personal_listAccounts', []],
      ['miner_start', []],
      ['txpool_content', []],
      ['eth_sendTransaction', [{ from: ACCOUNT, to: ACCOUNT }]],
      ['no_such_method', []],
    ];
    const before = upstream.received.length;
    for (const [i, [method, params]] of refused.entries()) {
      const res = await call('ethereum', developer, method, params, `id-${i}`);
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.include({ jsonrpc: '2.0', id: `id-${i}` });
      expect(res.json.error.code, method).to.equal(-32601);
      expect(res.json.error.message).to.contain(method);
    }
    expect(forwarded(before)).to.deep.equal([]);
    // The balance was not touched.
    expect((await call('ethereum', developer, 'eth_getBalance', [ACCOUNT, 'latest'])).json.result).to.equal('0x0');
  });

  it('forwards the eth_, net_ and web3_ namespaces', async () => {
    const before = upstream.received.length;
    for (const [method, params] of [['eth_blockNumber', []], ['eth_gasPrice', []], ['web3_sha3', ['0x00']], ['web3_clientVersion', []]] as const) {
      expect((await call('ethereum', developer, method, [...params])).json, method).to.have.property('result');
    }
    // This node has no net_listening: the question still reaches it, and its answer comes back.
    expect((await call('ethereum', developer, 'net_listening')).json.error.message).to.contain('net_listening');
    expect(forwarded(before)).to.deep.equal(['eth_blockNumber', 'eth_gasPrice', 'web3_sha3', 'web3_clientVersion', 'net_listening']);
  });

  it('in a batch, forwards only what the policy opens and answers the rest in place', async () => {
    const before = upstream.received.length;
    const res = await rpc(
      `${t.gw.url}/ethereum/rpc`,
      [
        { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'hardhat_mine', params: [] },
        { jsonrpc: '2.0', id: 3, method: 'eth_getBalance', params: [ACCOUNT, 'latest'] },
        { jsonrpc: '2.0', id: 4, method: 'admin_nodeInfo', params: [] },
      ],
      { 'x-api-key': developer },
    );
    expect(res.json.map((r: { id: number }) => r.id)).to.deep.equal([1, 2, 3, 4]);
    expect(res.json.map((r: { error?: { code: number } }) => r.error?.code)).to.deep.equal([undefined, -32601, undefined, -32601]);
    expect(forwarded(before)).to.deep.equal(['eth_blockNumber', 'eth_getBalance']);
  });

  it('lets the operator open a namespace, or close a method, on one network only', async () => {
    const opened = await call('ethereum-sepolia', developer, 'hardhat_setBalance', [ACCOUNT, '0x1000']);
    expect(opened.json.result).to.equal(true);
    expect((await call('ethereum-sepolia', developer, 'eth_getBalance', [ACCOUNT, 'latest'])).json.result).to.equal('0x1000');
    expect((await call('ethereum', developer, 'hardhat_setBalance', [ACCOUNT, '0x2000'])).json.error.code).to.equal(-32601);
    expect((await call('ethereum-sepolia', developer, 'eth_getStorageAt', [ACCOUNT, '0x0', 'latest'])).json.error.code).to.equal(-32601);
    expect((await call('ethereum', developer, 'eth_getStorageAt', [ACCOUNT, '0x0', 'latest'])).json).to.have.property('result');
  });

  it('forwards debug_ and trace_ only for plans that include them, and never debug_set*', async () => {
    const hash = `0x${'00'.repeat(32)}`;
    const before = upstream.received.length;
    const refused = await call('ethereum', developer, 'debug_traceTransaction', [hash]);
    expect(refused.json.error.code).to.equal(-32003);
    expect(forwarded(before)).to.deep.equal([]);
    const answered = await call('ethereum', premium, 'debug_traceTransaction', [hash]);
    // The node looked for the transaction: its own error, passed on.
    expect(answered.json.error.code).to.equal(-32000);
    expect(forwarded(before)).to.deep.equal(['debug_traceTransaction']);
    expect((await call('ethereum', premium, 'debug_setHead', ['0x0'])).json.error.code).to.equal(-32601);
    expect(forwarded(before)).to.deep.equal(['debug_traceTransaction']);
  });

  it("passes an upstream's error on with the client's id, in codes clients know, without the gateway's request in data", async () => {
    // A node that answers EIP-1474's "method not supported" and echoes the request it got (its id, its params).
    upstream.answers.set('eth_getProof', { error: { code: -32004, message: 'Method not supported', data: { jsonrpc: '2.0', id: 0, method: 'eth_getProof', params: [] } } });
    upstream.answers.set('eth_call', { error: { code: 3, message: 'execution reverted: nope', data: '0x08c379a0' } });
    try {
      const unknown = await rpc(`${t.gw.url}/ethereum/rpc`, '{"jsonrpc":"2.0","id":12345678901234567890,"method":"eth_getProof","params":[]}', { 'x-api-key': developer });
      expect(unknown.text).to.match(/^\{"jsonrpc":"2.0","id":12345678901234567890,"error":/);
      expect(unknown.json.error).to.deep.equal({ code: -32601, message: 'Method not supported' });
      // Revert data is the node's answer, and passes on.
      const reverted = await call('ethereum', developer, 'eth_call', [{ to: ACCOUNT, data: '0x' }, 'latest'], 'r');
      expect(reverted.json).to.deep.equal({ jsonrpc: '2.0', id: 'r', error: { code: 3, message: 'execution reverted: nope', data: '0x08c379a0' } });
    } finally {
      upstream.answers.clear();
    }
  });
});
