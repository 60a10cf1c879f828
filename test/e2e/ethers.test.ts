/**
 * ethers v6 against the gateway's /rpc, as a developer would point it: the ledger chain (answered by the relay over
 * the ledger sandbox) with the key in the path, and an EVM devnet network with the key in the X-API-KEY header.
 */
import { expect } from 'chai';
import { Contract, ContractFactory, FetchRequest, JsonRpcProvider, Wallet, getAddress, isError, parseEther, type ContractTransactionResponse } from 'ethers';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { counter } from './counter.js';
import { untilHead } from './head.js';

/** The ledger keeps balances in tinybar: 10^10 weibar. Amounts sent here are whole tinybar so they arrive exactly. */
const TINYBAR = 10n ** 10n;

const networks = [
  { name: 'the ledger chain (hedera-testnet), key in the path', chainId: 296n, request: (t: TestGateway) => new FetchRequest(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`) },
  {
    name: 'an EVM devnet (ethereum-sepolia), key in the X-API-KEY header',
    chainId: 11155111n,
    request: (t: TestGateway) => {
      const req = new FetchRequest(`${t.gw.url}/ethereum-sepolia/rpc`);
      req.setHeader('x-api-key', t.key);
      return req;
    },
  },
];

describe('ethers v6 through the gateway', function () {
  let t: TestGateway;

  before(async () => {
    counter(); // compile before the gateway starts, so no test pays for it
    t = await startTestGateway();
  });
  after(() => t?.close());

  for (const network of networks) {
    describe(network.name, () => {
      const [owner, other] = sandboxAccounts(2);
      let provider: JsonRpcProvider;
      let wallet: Wallet;
      let contract: Contract;
      let deployBlock: number;
      let setTx: ContractTransactionResponse;

      before(async () => {
        provider = new JsonRpcProvider(network.request(t), undefined, { cacheTimeout: -1, pollingInterval: 50 });
        wallet = new Wallet(owner.privateKey, provider);
      });
      after(() => provider?.destroy());

      it('finds the network and deploys the contract', async () => {
        expect((await provider.getNetwork()).chainId).to.equal(network.chainId);
        const { abi, bytecode } = counter();
        const deployed = await new ContractFactory(abi, bytecode, wallet).deploy();
        await deployed.waitForDeployment();
        const receipt = await deployed.deploymentTransaction()!.wait();
        expect(receipt?.status).to.equal(1);
        expect(receipt?.contractAddress?.toLowerCase()).to.equal((await deployed.getAddress()).toLowerCase());
        expect(await provider.getCode(await deployed.getAddress())).to.not.equal('0x');
        contract = deployed as unknown as Contract;
        deployBlock = receipt!.blockNumber;
      });

      it('calls a view, sends a state-changing transaction with value and sees the new state', async () => {
        expect(await contract.value()).to.equal(0n);
        setTx = await contract.set(42n, { value: 5n * TINYBAR });
        const receipt = await setTx.wait();
        expect(receipt?.status).to.equal(1);
        expect(receipt?.logs).to.have.length(1);
        expect(await contract.value()).to.equal(42n);
        expect(await provider.getBalance(await contract.getAddress())).to.equal(5n * TINYBAR);
      });

      it('sends value to another account and both balances change', async () => {
        const [senderBefore, recipientBefore] = await Promise.all([provider.getBalance(owner.address), provider.getBalance(other.address)]);
        const amount = parseEther('1.5');
        const receipt = await (await wallet.sendTransaction({ to: other.address, value: amount })).wait();
        expect(receipt?.status).to.equal(1);
        const [senderAfter, recipientAfter] = await Promise.all([provider.getBalance(owner.address), provider.getBalance(other.address)]);
        expect(recipientAfter).to.equal(recipientBefore + amount);
        // The sender also pays for gas, so it loses at least the amount.
        expect(senderBefore - senderAfter >= amount).to.equal(true);
      });

      it('reads the events back by address and by indexed topic', async () => {
        const last = (await (await contract.set(7n)).wait())!.blockNumber;
        await untilHead(() => provider.getBlockNumber(), last);
        const all = await contract.queryFilter(contract.filters.Set(), deployBlock, last);
        expect(all.map((e: any) => [e.args.by, e.args.value, e.args.paid])).to.deep.equal([
          [wallet.address, 42n, 5n * TINYBAR],
          [wallet.address, 7n, 0n],
        ]);
        expect(all[0].transactionHash).to.equal(setTx.hash);

        const byValue = await contract.queryFilter(contract.filters.Set(null, 7n), deployBlock, last);
        expect(byValue.map((e: any) => e.args.value)).to.deep.equal([7n]);

        // eth_getLogs by topic alone, without an address.
        const topic = contract.interface.getEvent('Set')!.topicHash;
        const logs = await provider.getLogs({ fromBlock: deployBlock, toBlock: last, topics: [topic, null, '0x' + (42n).toString(16).padStart(64, '0')] });
        expect(logs.map((l) => [l.address.toLowerCase(), l.transactionHash])).to.deep.equal([[(await contract.getAddress()).toLowerCase(), setTx.hash]]);
      });

      it('sends a type-2 transaction with an access list', async () => {
        const contractAddress = await contract.getAddress();
        const slot = '0x' + '0'.repeat(64);
        const data = contract.interface.encodeFunctionData('set', [9n]);
        // The gas limit is set: an estimate (ours and the official relay's) leaves out the access list's own cost.
        const accessList = [{ address: contractAddress, storageKeys: [slot] }];
        const sent = await wallet.sendTransaction({ type: 2, to: contractAddress, data, accessList, gasLimit: 100_000n });
        const receipt = await sent.wait();
        expect(receipt?.status).to.equal(1);
        const mined = await provider.getTransaction(sent.hash);
        expect(mined?.type).to.equal(2);
        expect(mined?.accessList).to.deep.equal(accessList);
        // The same transaction inside its block (eth_getBlockByNumber with full transactions).
        const block = await provider.getBlock(receipt!.blockNumber, true);
        expect(block!.getPrefetchedTransaction(sent.hash).accessList).to.deep.equal(accessList);
        expect(await contract.value()).to.equal(9n);
      });

      it('sends a type-2 transfer to an account with an access list of several addresses and keys', async () => {
        const key = (n: number) => '0x' + n.toString(16).padStart(64, '0');
        const accessList = [
          { address: getAddress(other.address), storageKeys: [key(1), key(2)] },
          { address: await contract.getAddress(), storageKeys: [] },
        ];
        const sent = await wallet.sendTransaction({ type: 2, to: other.address, value: TINYBAR, accessList, gasLimit: 100_000n });
        const receipt = await sent.wait();
        expect(receipt?.status).to.equal(1);
        expect((await provider.getTransaction(sent.hash))?.accessList).to.deep.equal(accessList);
        const block = await provider.getBlock(receipt!.blockNumber, true);
        expect(block!.getPrefetchedTransaction(sent.hash).accessList).to.deep.equal(accessList);
      });

      it("sends a transfer with an access list and no gas limit: the estimate covers the list's gas (EIP-2930)", async () => {
        const accessList = [{ address: getAddress(other.address), storageKeys: ['0x' + '1'.padStart(64, '0')] }];
        const sent = await wallet.sendTransaction({ type: 2, to: other.address, value: TINYBAR, accessList });
        expect((await sent.wait())?.status).to.equal(1);
        expect(sent.gasLimit >= 21_000n + 2_400n + 1_900n, `gas limit ${sent.gasLimit}`).to.equal(true);
      });

      it('refuses a transaction whose gas limit leaves out the access list\'s intrinsic gas (EIP-2930)', async () => {
        const contractAddress = await contract.getAddress();
        const data = contract.interface.encodeFunctionData('set', [10n]);
        const accessList = [{ address: contractAddress, storageKeys: ['0x' + '0'.repeat(64)] }];
        // Enough for the call and its data (21,000 plus EIP-2028's 4 or 16 per byte), not for 2,400 + 1,900 more.
        const bytes = Buffer.from(data.slice(2), 'hex');
        const withoutList = 21_000n + bytes.reduce((sum, b) => sum + (b === 0 ? 4n : 16n), 0n);
        let caught: unknown;
        try {
          await wallet.sendTransaction({ type: 2, to: contractAddress, data, accessList, gasLimit: withoutList });
        } catch (err) {
          caught = err;
        }
        expect(caught, 'the transaction was accepted').to.be.instanceOf(Error);
        if (network.chainId === 296n) {
          expect(String(caught)).to.contain(`Transaction gas limit provided '${withoutList}' is insufficient of intrinsic gas required '${withoutList + 4_300n}'`);
        }
        expect(await contract.value()).to.equal(9n);
      });

      it('surfaces a revert as CALL_EXCEPTION with the reason, from a call and from a transaction', async () => {
        // A call to the function, then a send: sending estimates gas first and the estimate reverts.
        for (const attempt of [() => contract.fail(), () => contract.fail.send()]) {
          let caught: unknown;
          try {
            await attempt();
          } catch (err) {
            caught = err;
          }
          expect(isError(caught, 'CALL_EXCEPTION'), String(caught)).to.equal(true);
          expect((caught as { reason?: string }).reason).to.equal('Counter: always fails');
        }
      });
    });
  }
});
