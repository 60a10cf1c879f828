import { expect } from 'chai';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { ethers } from 'ethers';
import { createPublicClient, createWalletClient, http as viemHttp, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startDevnet, type Devnet } from '../../packages/sandbox/src/devnet.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';

const [alice, bob] = sandboxAccounts(2);
const CHAIN_ID_CALL = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };

describe('EVM chains through the gateway (real EVM devnet upstream)', () => {
  let t: TestGateway;
  let rpcUrl: string;

  before(async () => {
    t = await startTestGateway();
    rpcUrl = `${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`;
  });
  after(() => t?.close());

  it('answers eth_chainId by Host header, as the README curl line does', async () => {
    // fetch does not let a caller set Host; node:http does, as curl -H 'Host: ...' does.
    const body = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${t.gw.url}/rpc`, { method: 'POST', headers: { host: 'ethereum-sepolia.localhost:8080', 'x-api-key': t.key } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
      });
      req.once('error', reject);
      req.end(JSON.stringify(CHAIN_ID_CALL));
    });
    expect(JSON.parse(body)).to.deep.equal({ jsonrpc: '2.0', id: 1, result: '0xaa36a7' });
  });

  it('answers a mistyped network on /rpc in JSON-RPC\'s shape with 404, naming the closest networks', async () => {
    const host = new URL(t.gw.url).port;
    for (const [url, headers] of [
      [`${t.gw.url}/etherium-sepolia/rpc`, {}],
      [`${t.gw.url}/etherium-sepolia/v1/${t.key}/rpc`, {}],
      [`${t.gw.url}/rpc`, { host: `etherium-sepolia.localhost:${host}` }],
    ] as const) {
      // node:http, so the Host header can be chosen.
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.key, ...headers } }, (r) => {
          let text = '';
          r.on('data', (c) => (text += c));
          r.on('end', () => resolve({ status: r.statusCode!, body: text }));
        });
        req.once('error', reject);
        req.end(JSON.stringify(CHAIN_ID_CALL));
      });
      expect(res.status, url).to.equal(404);
      const body = JSON.parse(res.body);
      // The id is unknown before the network is: JSON-RPC's null id, as for any refusal before the body is read.
      expect(body).to.deep.include({ jsonrpc: '2.0', id: null });
      expect(body.error.code).to.equal(-32601);
      expect(body.error.message).to.include('did you mean ethereum-sepolia?');
      expect(res.body).not.to.include(t.key);
    }
  });

  it('ethers v6 reads the chain id, a balance and a block, and sends a transaction that is mined', async () => {
    const provider = new ethers.JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1, staticNetwork: true });
    expect((await provider.getNetwork()).chainId).to.equal(11155111n);
    expect((await provider.getBalance(alice.address)) > 0n).to.equal(true);
    const before = await provider.getBalance(bob.address);
    const wallet = new ethers.Wallet(alice.privateKey, provider);
    const tx = await wallet.sendTransaction({ to: bob.address, value: ethers.parseEther('1.5') });
    const receipt = await tx.wait();
    expect(receipt?.status).to.equal(1);
    expect(await provider.getBalance(bob.address)).to.equal(before + ethers.parseEther('1.5'));
    const block = await provider.getBlock(receipt!.blockNumber);
    expect(block?.transactions).to.include(tx.hash);
    provider.destroy();
  });

  for (const batch of [false, true]) {
    it(`viem reads and sends through the http transport${batch ? ' with batch: true' : ''}`, async () => {
      const transport = viemHttp(rpcUrl, { batch });
      const client = createPublicClient({ transport });
      const [chainId, balance, block] = await Promise.all([client.getChainId(), client.getBalance({ address: bob.address as `0x${string}` }), client.getBlock()]);
      expect(chainId).to.equal(11155111);
      expect(balance > 0n).to.equal(true);
      expect(block.number).to.be.a('bigint');
      const account = privateKeyToAccount(alice.privateKey as `0x${string}`);
      const chain = { id: 11155111, name: 'sepolia', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
      const wallet = createWalletClient({ account, chain, transport });
      const hash = await wallet.sendTransaction({ to: bob.address as `0x${string}`, value: parseEther('0.25') });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      expect(receipt.status).to.equal('success');
    });
  }

  it('answers a batch in the order sent, with every id echoed exactly and notifications left out', async () => {
    const body = `[{"jsonrpc":"2.0","id":12345678901234567890,"method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","id":"b","method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":0,"method":"no_such_method","params":[]},{"jsonrpc":"2.0","id":null,"method":"net_version"}]`;
    const res = await rpc(rpcUrl, body);
    expect(res.status).to.equal(200);
    expect(res.text.startsWith('[{"jsonrpc":"2.0","id":12345678901234567890,"result":"0x')).to.equal(true);
    expect(res.json.map((r: { id: unknown }) => r.id)).to.deep.equal([12345678901234567890, 'b', 0, null]);
    expect(res.json[1].result).to.equal('0xaa36a7');
    expect(res.json[2].error.code).to.be.a('number');
    expect(res.json[3].result).to.equal('11155111');
  });

  it('gives a batch of only notifications no body', async () => {
    const res = await rpc(rpcUrl, [{ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }]);
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
  });

  it('answers parse errors, empty batches and over-long batches as the spec says, with HTTP 200', async () => {
    expect((await rpc(rpcUrl, '{"jsonrpc":')).json).to.deep.include({ id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON' } });
    const empty = await rpc(rpcUrl, '[]');
    expect([empty.status, Array.isArray(empty.json), empty.json.error.code]).to.deep.equal([200, false, -32600]);
    const tooMany = await rpc(rpcUrl, Array.from({ length: 1001 }, (_, i) => ({ ...CHAIN_ID_CALL, id: i })));
    expect(tooMany.json.error.code).to.equal(-32600);
    expect(tooMany.json.error.message).to.contain('1000');
  });

  it('refuses GET with 405 and a JSON-RPC error', async () => {
    const res = await fetch(rpcUrl);
    expect(res.status).to.equal(405);
    expect((await res.json()).error.code).to.equal(-32600);
  });

  it('refuses a body over the limit with 413 and a JSON-RPC error', async () => {
    const res = await rpc(rpcUrl, JSON.stringify({ ...CHAIN_ID_CALL, params: ['x'.repeat(6 * 1024 * 1024)] }));
    expect(res.status).to.equal(413);
    expect(res.json.error.message).to.contain('too large');
  });

  it('bounds what it forwards to nodes that are not hardened', async () => {
    const res = await rpc(rpcUrl, { jsonrpc: '2.0', id: 7, method: 'eth_feeHistory', params: ['0xffffffff', 'latest', []] });
    expect(res.json).to.deep.include({ id: 7 });
    expect(res.json.error.code).to.equal(-32602);
  });
});

describe('EVM upstream failover', () => {
  let devnet: Devnet;
  let refusingUrl: string;
  let silent: http.Server;
  let silentUrl: string;
  let silentHits = 0;
  let failing: http.Server;
  let failingUrl: string;

  before(async () => {
    devnet = await startDevnet({ chainId: 11155111 });
    // A port that refuses connections: bind, note the port, close.
    const probe = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => probe.once('listening', r));
    refusingUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((r) => probe.close(r));
    // An upstream that accepts and never answers.
    silent = http.createServer(() => silentHits++).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    failing = http.createServer((_, res) => res.writeHead(503).end('overloaded')).listen(0, '127.0.0.1');
    await new Promise((r) => failing.once('listening', r));
    failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
  });
  after(async () => {
    silent.closeAllConnections();
    await Promise.all([devnet?.close(), new Promise((r) => silent.close(r)), new Promise((r) => failing.close(r))]);
  });

  async function gatewayWith(upstreams: string[]) {
    return startTestGateway({
      // The attempt timeout is also the devnet's: generous, so a busy machine's slow answer is not taken for a dead upstream.
      server: { upstreamTimeoutMs: 2_000 },
      chains: { ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams }, sepolia: { chainId: 11155111, upstreams } } } },
    });
  }
  const blockNumber = { jsonrpc: '2.0', id: 'x', method: 'eth_blockNumber', params: [] };

  for (const [name, first] of [
    ['refuses connections', () => refusingUrl],
    ['times out', () => silentUrl],
    ['answers 5xx', () => failingUrl],
  ] as const) {
    it(`moves on when the first upstream ${name}`, async () => {
      const t = await gatewayWith([first(), devnet.url]);
      try {
        const res = await rpc(`${t.gw.url}/ethereum-sepolia/rpc`, blockNumber, { 'x-api-key': t.key });
        expect(res.json).to.have.property('result').that.matches(/^0x[0-9a-f]+$/);
      } finally {
        await t.close();
      }
    });
  }

  it('shuts down after the grace period even while an upstream request hangs', async function () {
    this.timeout(20_000);
    const t = await startTestGateway({
      server: { upstreamTimeoutMs: 120_000, shutdownGraceMs: 200 },
      chains: { ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: [silentUrl] } } } },
    });
    const hitsBefore = silentHits;
    const pending = rpc(`${t.gw.url}/ethereum/rpc`, blockNumber, { 'x-api-key': t.key }).catch((err: Error) => err);
    while (silentHits === hitsBefore) await new Promise((r) => setTimeout(r, 20));
    await t.close();
    expect(await pending).to.be.instanceOf(Error);
  });

  it('answers a clear JSON-RPC error when every upstream fails', async () => {
    const t = await gatewayWith([refusingUrl, silentUrl]);
    try {
      const res = await rpc(`${t.gw.url}/ethereum-sepolia/rpc`, blockNumber, { 'x-api-key': t.key });
      expect(res.status).to.equal(200);
      expect(res.json.id).to.equal('x');
      expect(res.json.error.code).to.equal(-32603);
      expect(res.json.error.message).to.match(/timed out|unavailable/i);
      // The chain id still comes from the catalogue, without an upstream.
      expect((await rpc(`${t.gw.url}/ethereum-sepolia/rpc`, CHAIN_ID_CALL, { 'x-api-key': t.key })).json.result).to.equal('0xaa36a7');
    } finally {
      await t.close();
    }
  });
});
