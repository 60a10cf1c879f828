/**
 * viem against the gateway's /rpc: the ledger chain (answered by the relay over the ledger sandbox) with the key in
 * the X-API-KEY header and a batching transport, and an EVM devnet network with the key in the path.
 */
import { expect } from 'chai';
import { BaseError, ContractFunctionRevertedError, createPublicClient, createWalletClient, defineChain, http, parseEther, parseEventLogs, type Address, type Hex, type HttpTransport } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { counter } from './counter.js';
import { untilHead } from './head.js';

/** The ledger keeps balances in tinybar: 10^10 weibar. Amounts sent here are whole tinybar so they arrive exactly. */
const TINYBAR = 10n ** 10n;

const networks = [
  {
    name: 'the ledger chain (hedera-testnet), key in the X-API-KEY header, batch: true',
    chainId: 296,
    transport: (t: TestGateway) => http(`${t.gw.url}/hedera-testnet/rpc`, { batch: true, fetchOptions: { headers: { 'x-api-key': t.key } } }),
  },
  { name: 'an EVM devnet (ethereum-sepolia), key in the path', chainId: 11155111, transport: (t: TestGateway) => http(`${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`) },
];

describe('viem through the gateway', function () {
  let t: TestGateway;

  before(async () => {
    counter(); // compile before the gateway starts, so no test pays for it
    t = await startTestGateway();
  });
  after(() => t?.close());

  for (const network of networks) {
    describe(network.name, () => {
      const [owner, other] = sandboxAccounts(2);
      const account = privateKeyToAccount(owner.privateKey as Hex);
      const chain = defineChain({ id: network.chainId, name: network.name, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } });
      let transport: HttpTransport;
      let address: Address;
      let deployBlock: bigint;
      let setHash: Hex;

      const client = () => createPublicClient({ chain, transport, pollingInterval: 50 });
      const wallet = () => createWalletClient({ account, chain, transport });
      const abi = () => counter().abi;

      before(() => {
        transport = network.transport(t);
      });

      it('reads the chain id and deploys the contract', async () => {
        expect(await client().getChainId()).to.equal(network.chainId);
        const hash = await wallet().deployContract({ abi: abi(), bytecode: counter().bytecode });
        const receipt = await client().waitForTransactionReceipt({ hash, pollingInterval: 50 });
        expect(receipt.status).to.equal('success');
        expect(receipt.contractAddress).to.match(/^0x[0-9a-fA-F]{40}$/);
        address = receipt.contractAddress!;
        deployBlock = receipt.blockNumber;
        expect(await client().getCode({ address })).to.not.equal(undefined);
      });

      it('reads the contract, writes to it with value and sees the new state', async () => {
        expect(await client().readContract({ address, abi: abi(), functionName: 'value' })).to.equal(0n);
        setHash = await wallet().writeContract({ address, abi: abi(), functionName: 'set', args: [42n], value: 5n * TINYBAR });
        const receipt = await client().waitForTransactionReceipt({ hash: setHash, pollingInterval: 50 });
        expect(receipt.status).to.equal('success');
        const [event] = parseEventLogs({ abi: abi(), logs: receipt.logs, eventName: 'Set' }) as any[];
        expect(event.args).to.deep.equal({ by: account.address, value: 42n, paid: 5n * TINYBAR });
        // Reads batched into one request when the transport batches.
        const [value, balance] = await Promise.all([client().readContract({ address, abi: abi(), functionName: 'value' }), client().getBalance({ address })]);
        expect([value, balance]).to.deep.equal([42n, 5n * TINYBAR]);
      });

      it('sends value to another account and both balances change', async () => {
        const [senderBefore, recipientBefore] = await Promise.all([client().getBalance({ address: account.address }), client().getBalance({ address: other.address as Address })]);
        const amount = parseEther('0.25');
        const hash = await wallet().sendTransaction({ to: other.address as Address, value: amount });
        expect((await client().waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).to.equal('success');
        const [senderAfter, recipientAfter] = await Promise.all([client().getBalance({ address: account.address }), client().getBalance({ address: other.address as Address })]);
        expect(recipientAfter).to.equal(recipientBefore + amount);
        expect(senderBefore - senderAfter >= amount).to.equal(true);
      });

      it('reads the events back with getContractEvents and getLogs by indexed topic', async () => {
        const hash = await wallet().writeContract({ address, abi: abi(), functionName: 'set', args: [7n] });
        const last = (await client().waitForTransactionReceipt({ hash, pollingInterval: 50 })).blockNumber;
        await untilHead(() => client().getBlockNumber({ cacheTime: 0 }), last);
        const events = (await client().getContractEvents({ address, abi: abi(), eventName: 'Set', fromBlock: deployBlock, toBlock: last })) as any[];
        expect(events.map((e) => [e.args.value, e.args.paid])).to.deep.equal([
          [42n, 5n * TINYBAR],
          [7n, 0n],
        ]);
        expect(events[0].transactionHash).to.equal(setHash);
        const setEvent = abi().find((x) => x.type === 'event' && x.name === 'Set');
        const logs = await client().getLogs({ event: setEvent, args: { value: 42n }, fromBlock: deployBlock, toBlock: last });
        expect(logs.map((l: any) => [l.address.toLowerCase(), l.transactionHash, l.args.value])).to.deep.equal([[address.toLowerCase(), setHash, 42n]]);
      });

      it('surfaces a revert with its reason, from a simulation and from a write', async () => {
        const attempts = [
          () => client().simulateContract({ address, abi: abi(), functionName: 'fail', account }),
          // Writing estimates gas first, and the estimate reverts: the error a user sees before anything is signed.
          () => wallet().writeContract({ address, abi: abi(), functionName: 'fail' }),
        ];
        for (const attempt of attempts) {
          let caught: unknown;
          try {
            await attempt();
          } catch (err) {
            caught = err;
          }
          expect(caught, 'the call reverted').to.be.instanceOf(BaseError);
          const revert = (caught as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
          expect(revert?.reason, String(caught)).to.equal('Counter: always fails');
        }
      });
    });
  }
});

describe('viem watchBlocks on an EVM devnet that nobody sends to', function () {
  this.timeout(60_000);
  let t: TestGateway;
  before(async () => {
    // The sandbox's own block time, as `npm start` has it (2 s by default), shortened.
    t = await startTestGateway({ sandbox: { blockIntervalMs: 200 } });
  });
  after(() => t?.close());

  it('sees new blocks arrive', async () => {
    const client = createPublicClient({ transport: http(`${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`), pollingInterval: 100 });
    const seen: bigint[] = [];
    await new Promise<void>((resolve, reject) => {
      const unwatch = client.watchBlocks({
        onBlock: (block) => {
          seen.push(block.number);
          if (seen.length === 2) {
            unwatch();
            resolve();
          }
        },
        onError: reject,
      });
    });
    expect(seen[1] > seen[0], String(seen)).to.equal(true);
  });
});
