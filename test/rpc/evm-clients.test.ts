/**
 * Done when: through the gateway, with an ordinary Developer key (no flags), against a real EVM node not written here
 * (anvil) and against the sandbox's devnet, the JSON-RPC 2.0 specification's examples and edge cases hold, and
 * ethers, viem (batch and not) and web3.js deploy, call, send, read logs and send value back to back. Closed methods
 * answer -32601 with nothing forwarded, as a recording upstream in front of the node shows.
 */
import { expect } from 'chai';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http, parseEventLogs, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Web3 } from 'web3';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { counter } from '../e2e/counter.js';
import { ANVIL_CHAIN_ID, startAnvil, type Anvil } from '../support/anvil.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { needTool, TOOLS } from '../support/services.js';
import { UpstreamProxy } from '../support/upstreamProxy.js';

/** anvil's funded development accounts (the first two), once it started. */
const anvilKeys: string[] = [];

interface Target {
  name: string;
  network: string;
  chainId: number;
  keys: string[];
}

const targets: Target[] = [
  { name: 'anvil (a real node not written here) as the configured upstream', network: 'ethereum', chainId: ANVIL_CHAIN_ID, keys: anvilKeys },
  { name: "the sandbox's EVM devnet", network: 'ethereum-sepolia', chainId: 11155111, keys: sandboxAccounts(2).map((a) => a.privateKey) },
];

describe('EVM clients through the gateway with a Developer key', function () {
  this.timeout(120_000);
  let anvil: Anvil | undefined;
  let recorder: UpstreamProxy;
  let t: TestGateway;
  let key: string;

  before(async function () {
    counter();
    anvil = await startAnvil(needTool(this, TOOLS.anvil));
    anvilKeys.push(...anvil.keys.slice(0, 2));
    recorder = await UpstreamProxy.start(anvil.url);
    t = await startTestGateway({
      chains: {
        ethereum: {
          displayName: 'Ethereum',
          networks: { mainnet: { chainId: ANVIL_CHAIN_ID, upstreams: [recorder.url] }, sepolia: { chainId: 11155111 } },
        },
      },
    });
    key = (await t.newKey('developer', [])).key;
  });
  after(async () => {
    await t?.close();
    await recorder?.close();
    anvil?.child.kill();
  });

  for (const target of targets) {
    describe(target.name, () => {
      // A fresh Developer key per client, so each flow has its plan's whole budget.
      beforeEach(async () => {
        key = (await t.newKey('developer', [])).key;
      });
      const url = () => `${t.gw.url}/${target.network}/v1/${key}/rpc`;
      const post = (body: unknown) => rpc(url(), body);
      const shape = (r: { id: unknown; error?: { code: number }; result?: unknown }) => (r.error ? { id: r.id, code: r.error.code } : { id: r.id, result: true });

      it('answers the JSON-RPC 2.0 specification examples and edge cases', async () => {
        // The spec's examples, with Ethereum methods in place of its made-up ones.
        expect(shape((await post({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [], id: 1 })).json)).to.deep.equal({ id: 1, result: true });
        expect(shape((await post({ jsonrpc: '2.0', method: 'eth_getBalance', params: { 0: 'x' }, id: 3 })).json).id).to.equal(3);
        const notification = await post({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] });
        expect([notification.status, notification.text]).to.deep.equal([204, '']);
        expect(shape((await post({ jsonrpc: '2.0', method: 'foobar', id: '1' })).json)).to.deep.equal({ id: '1', code: -32601 });
        expect(shape((await post('{"jsonrpc":"2.0","method":"foobar, "params":"bar", "baz]')).json)).to.deep.equal({ id: null, code: -32700 });
        expect(shape((await post('{"jsonrpc":"2.0","method":1,"params":"bar"}')).json)).to.deep.equal({ id: null, code: -32600 });
        expect(shape((await post('[{"jsonrpc":"2.0","method":"eth_chainId","id":"1"},{"jsonrpc":"2.0","method"]')).json)).to.deep.equal({ id: null, code: -32700 });
        expect(shape((await post('[]')).json)).to.deep.equal({ id: null, code: -32600 });
        expect((await post('[1]')).json.map(shape)).to.deep.equal([{ id: null, code: -32600 }]);
        expect((await post('[1,2,3]')).json.map(shape)).to.deep.equal([1, 2, 3].map(() => ({ id: null, code: -32600 })));
        const mixed = await post(
          '[{"jsonrpc":"2.0","method":"eth_chainId","id":"1"},{"jsonrpc":"2.0","method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","method":"net_version","id":"2"},{"foo":"boo"},{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"},{"jsonrpc":"2.0","method":"eth_gasPrice","id":"9"}]',
        );
        expect(mixed.json.map(shape)).to.deep.equal([
          { id: '1', result: true },
          { id: '2', result: true },
          { id: null, code: -32600 },
          { id: '5', code: -32601 },
          { id: '9', result: true },
        ]);
        expect(mixed.json[0].result).to.equal(`0x${target.chainId.toString(16)}`);
        const notifications = await post('[{"jsonrpc":"2.0","method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","method":"eth_chainId"}]');
        expect([notifications.status, notifications.text]).to.deep.equal([204, '']);
        const big = await post('{"jsonrpc":"2.0","id":12345678901234567890,"method":"eth_chainId","params":[]}');
        expect(big.text).to.match(/^\{"jsonrpc":"2.0","id":12345678901234567890,"result":/);
      });

      it('answers hardhat_setBalance and admin_peers -32601 without forwarding them', async () => {
        const before = recorder.received.length;
        for (const [method, params] of [
          ['hardhat_setBalance', ['0x0000000000000000000000000000000000000001', '0x1000']],
          ['admin_peers', []],
          ['anvil_setBalance', ['0x0000000000000000000000000000000000000001', '0x1000']],
        ] as const) {
          const res = await post({ jsonrpc: '2.0', id: 7, method, params });
          expect(res.json.error.code, method).to.equal(-32601);
          expect(res.json.error.message).to.contain(method);
        }
        expect(recorder.methods().slice(before).filter((m) => m !== 'eth_blockNumber' && m !== 'eth_chainId')).to.deep.equal([]);
      });

      it('ethers v6: deploys, calls, sends with value, reads logs, and sends value back to back', async () => {
        const provider = new JsonRpcProvider(url(), undefined, { cacheTimeout: -1, pollingInterval: 250, staticNetwork: true });
        const wallet = new Wallet(target.keys[0], provider);
        const other = new Wallet(target.keys[1]).address;
        try {
          const { abi, bytecode } = counter();
          const deployed = await new ContractFactory(abi, bytecode, wallet).deploy();
          const deployReceipt = await deployed.deploymentTransaction()!.wait();
          const contract = deployed as unknown as Contract;
          const receipt = await (await contract.set(42n, { value: 5n })).wait();
          expect(receipt?.status).to.equal(1);
          expect(await contract.value()).to.equal(42n);
          const events = await contract.queryFilter(contract.filters.Set(), deployReceipt!.blockNumber, receipt!.blockNumber);
          expect(events.map((e: any) => [e.args.value, e.args.paid])).to.deep.equal([[42n, 5n]]);
          const before = await provider.getBalance(other);
          const sends = [await wallet.sendTransaction({ to: other, value: parseEther('0.01') }), await wallet.sendTransaction({ to: other, value: parseEther('0.02') })];
          for (const s of sends) expect((await s.wait())?.status).to.equal(1);
          expect(await provider.getBalance(other)).to.equal(before + parseEther('0.03'));
        } finally {
          provider.destroy();
        }
      });

      for (const batch of [false, true]) {
        it(`viem${batch ? ' with batch: true' : ''}: deploys, reads, writes with value, reads logs, and sends value back to back`, async () => {
          const chain = defineChain({ id: target.chainId, name: target.network, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url()] } } });
          const transport = http(url(), { batch });
          const account = privateKeyToAccount(target.keys[0] as Hex);
          const other = privateKeyToAccount(target.keys[1] as Hex).address;
          const client = createPublicClient({ chain, transport, pollingInterval: 50 });
          const wallet = createWalletClient({ account, chain, transport });
          const { abi, bytecode } = counter();
          const deployHash = await wallet.deployContract({ abi, bytecode });
          const address = (await client.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 50 })).contractAddress as Address;
          const setHash = await wallet.writeContract({ address, abi, functionName: 'set', args: [7n], value: 3n });
          const receipt = await client.waitForTransactionReceipt({ hash: setHash, pollingInterval: 50 });
          const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: 'Set' }) as any[];
          expect(event.args).to.deep.include({ value: 7n, paid: 3n });
          const [value, logs] = await Promise.all([
            client.readContract({ address, abi, functionName: 'value' }),
            client.getContractEvents({ address, abi, eventName: 'Set', fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber }),
          ]);
          expect([value, logs.length]).to.deep.equal([7n, 1]);
          const before = await client.getBalance({ address: other });
          const hashes = [await wallet.sendTransaction({ to: other, value: 11n }), await wallet.sendTransaction({ to: other, value: 13n })];
          for (const hash of hashes) expect((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).to.equal('success');
          expect(await client.getBalance({ address: other })).to.equal(before + 24n);
        });
      }

      it('web3.js: deploys, calls, sends with value, reads logs, and sends value back to back', async () => {
        const web3 = new Web3(url());
        const account = web3.eth.accounts.wallet.add(target.keys[0])[0];
        const other = web3.eth.accounts.privateKeyToAccount(target.keys[1]).address;
        const { abi, bytecode } = counter();
        const deployed = await new web3.eth.Contract(abi).deploy({ data: bytecode }).send({ from: account.address });
        const receipt = await deployed.methods.set(9n).send({ from: account.address, value: '4' });
        expect(Number(receipt.status)).to.equal(1);
        expect(await deployed.methods.value().call()).to.equal(9n);
        const events = await deployed.getPastEvents('Set', { fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
        expect(events.map((e: any) => [e.returnValues.value, e.returnValues.paid])).to.deep.equal([[9n, 4n]]);
        const before = await web3.eth.getBalance(other);
        const sends = [await web3.eth.sendTransaction({ from: account.address, to: other, value: '17' }), await web3.eth.sendTransaction({ from: account.address, to: other, value: '19' })];
        for (const s of sends) expect(Number(s.status)).to.equal(1);
        expect(await web3.eth.getBalance(other)).to.equal(before + 36n);
      });
    });
  }
});
