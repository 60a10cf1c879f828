/**
 * The relay against the ledger sandbox: the real @hashgraph/sdk over gRPC to the consensus-node stand-in, a real EVM,
 * the mirror-node stand-in over real HTTP. Every method's result is checked against the Ethereum OpenRPC schema.
 */
import { expect } from 'chai';
import { Contract, ContractFactory, JsonRpcProvider, Transaction, Wallet, parseEther, type TransactionReceipt } from 'ethers';
import { startLedgerSandbox } from '../../packages/sandbox/src/index.js';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { validateRpcResult, hasRpcMethod } from '../support/openrpc.js';
import { call, result, sandboxRelay, testRelay } from '../ledger/helpers.js';
import { greeter } from './contract.js';
import { serveRpc } from './rpcServer.js';

const CHAIN_ID = 296;
type Sandbox = Awaited<ReturnType<typeof startLedgerSandbox>>;

async function checked(relay: LedgerRelay, method: string, params: unknown[]): Promise<any> {
  const value = await result(relay, method, params);
  if (hasRpcMethod(method)) expect(validateRpcResult(method, value), `${method} result against OpenRPC`).to.deep.equal([]);
  return value;
}

describe('ledger relay against the ledger sandbox', function () {
  let sandbox: Sandbox;
  let relay: LedgerRelay;
  let server: { url: string; close: () => Promise<void> };
  let provider: JsonRpcProvider;
  let wallet: Wallet;
  let contract: Contract;
  let deployReceipt: TransactionReceipt;
  let greetReceipt: TransactionReceipt;

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
    relay = sandboxRelay(CHAIN_ID, sandbox);
    server = await serveRpc(relay);
    provider = new JsonRpcProvider(server.url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
    wallet = new Wallet(sandbox.accounts[0].privateKey, provider);
    const { abi, bytecode } = greeter();
    const deployed = await new ContractFactory(abi, bytecode, wallet).deploy('hello', '0x');
    await deployed.waitForDeployment();
    deployReceipt = (await deployed.deploymentTransaction()!.wait())!;
    contract = deployed as unknown as Contract;
    const tx = await contract.greet('hi', { value: parseEther('1') });
    greetReceipt = (await tx.wait())!;
  });

  after(async () => {
    provider?.destroy();
    await server?.close();
    await relay?.close();
    await sandbox?.close();
  });

  it('ethers v6 deploys a contract, calls it, sends value and reads its events', async () => {
    expect(deployReceipt.status).to.equal(1);
    expect(await contract.greeting()).to.equal('hi');
    expect(greetReceipt.status).to.equal(1);
    const events = await contract.queryFilter(contract.filters.Greeted(), deployReceipt.blockNumber, 'latest');
    expect(events).to.have.length(1);
    const [from, message, value] = (events[0] as any).args;
    expect([from, message, value]).to.deep.equal([wallet.address, 'hi', parseEther('1')]);
    expect(await provider.getBalance(await contract.getAddress())).to.equal(parseEther('1'));

    const to = sandbox.accounts[1].address;
    const before = await provider.getBalance(to);
    const send = await wallet.sendTransaction({ to, value: parseEther('2') });
    expect((await send.wait())!.status).to.equal(1);
    expect(await provider.getBalance(to)).to.equal(before + parseEther('2'));

    const reverted = await contract.fail.staticCall().catch((e) => e);
    expect(reverted.reason).to.equal('nope');
  });

  it('viem deploys a contract, calls it, sends value and reads its events', async () => {
    const { createPublicClient, createWalletClient, defineChain, http, parseEther: viemEther, getContract } = await import('viem');
    const { privateKeyToAccount } = await import('viem/accounts');
    const chain = defineChain({
      id: CHAIN_ID,
      name: 'ledger sandbox',
      nativeCurrency: { name: 'HBAR', symbol: 'HBAR', decimals: 18 },
      rpcUrls: { default: { http: [server.url] } },
    });
    const account = privateKeyToAccount(sandbox.accounts[2].privateKey as `0x${string}`);
    const publicClient = createPublicClient({ chain, transport: http(), pollingInterval: 50 });
    const walletClient = createWalletClient({ chain, transport: http(), account, pollingInterval: 50 });
    const { abi, bytecode } = greeter();

    const deployHash = await walletClient.deployContract({ abi, bytecode: bytecode as `0x${string}`, args: ['hello', '0x'] });
    const deployed = await publicClient.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 50 });
    expect(deployed.status).to.equal('success');
    const address = deployed.contractAddress!;
    const greeterContract = getContract({ address, abi, client: { public: publicClient, wallet: walletClient } });
    expect(await greeterContract.read.greeting()).to.equal('hello');

    const callHash = await greeterContract.write.greet(['viem'], { value: viemEther('1') });
    const called = await publicClient.waitForTransactionReceipt({ hash: callHash, pollingInterval: 50 });
    expect(called.status).to.equal('success');
    expect(await greeterContract.read.greeting()).to.equal('viem');
    const events = await publicClient.getContractEvents({ address, abi, eventName: 'Greeted', fromBlock: deployed.blockNumber });
    expect(events).to.have.length(1);
    expect((events[0] as any).args).to.deep.include({ from: account.address, message: 'viem', value: viemEther('1') });

    const to = sandbox.accounts[3].address as `0x${string}`;
    const before = await publicClient.getBalance({ address: to });
    const sendHash = await walletClient.sendTransaction({ to, value: viemEther('3') });
    expect((await publicClient.waitForTransactionReceipt({ hash: sendHash, pollingInterval: 50 })).status).to.equal('success');
    expect(await publicClient.getBalance({ address: to })).to.equal(before + viemEther('3'));
  });

  it('every read method answers in the shape the Ethereum OpenRPC spec gives', async () => {
    const latest = await checked(relay, 'eth_getBlockByNumber', ['latest', false]);
    const blockHex = `0x${deployReceipt.blockNumber.toString(16)}`;
    const block = await checked(relay, 'eth_getBlockByNumber', [`0x${greetReceipt.blockNumber.toString(16)}`, true]);
    expect(block.transactions.map((t: any) => t.hash)).to.include(greetReceipt.hash);
    for (const tag of ['earliest', 'pending', 'safe', 'finalized']) await checked(relay, 'eth_getBlockByNumber', [tag, false]);
    const byHash = await checked(relay, 'eth_getBlockByHash', [greetReceipt.blockHash, true]);
    expect(byHash).to.deep.equal(block);
    const parent = await checked(relay, 'eth_getBlockByNumber', [`0x${(greetReceipt.blockNumber - 1).toString(16)}`, false]);
    expect(block.parentHash).to.equal(parent.hash);
    expect(Number(await checked(relay, 'eth_blockNumber', []))).to.be.at.least(Number(latest.number));

    const tx = await checked(relay, 'eth_getTransactionByHash', [greetReceipt.hash]);
    expect(tx.value).to.equal(`0x${parseEther('1').toString(16)}`);
    const receipt = await checked(relay, 'eth_getTransactionReceipt', [greetReceipt.hash]);
    expect(receipt.logs).to.have.length(1);
    await checked(relay, 'eth_getTransactionReceipt', [deployReceipt.hash]);
    expect(Number(await checked(relay, 'eth_getBlockTransactionCountByNumber', [blockHex]))).to.be.at.least(1);
    expect(Number(await checked(relay, 'eth_getBlockTransactionCountByHash', [deployReceipt.blockHash]))).to.be.at.least(1);
    const byIndex = await checked(relay, 'eth_getTransactionByBlockNumberAndIndex', [`0x${greetReceipt.blockNumber.toString(16)}`, tx.transactionIndex]);
    expect(byIndex.hash).to.equal(greetReceipt.hash);
    const byHashIndex = await checked(relay, 'eth_getTransactionByBlockHashAndIndex', [greetReceipt.blockHash, tx.transactionIndex]);
    expect(byHashIndex.hash).to.equal(greetReceipt.hash);

    const address = (await contract.getAddress()).toLowerCase();
    expect(await checked(relay, 'eth_getCode', [address, 'latest'])).to.match(/^0x[0-9a-f]{10,}$/);
    expect(await checked(relay, 'eth_getCode', [wallet.address, 'latest'])).to.equal('0x');
    expect(await checked(relay, 'eth_getStorageAt', [address, '0x0', 'latest'])).to.match(/^0x[0-9a-f]{64}$/);
    expect(BigInt(await checked(relay, 'eth_getBalance', [address, 'latest']))).to.equal(parseEther('1'));
    expect(BigInt(await checked(relay, 'eth_getBalance', [address, blockHex]))).to.equal(0n);
    const nonce = Number(await checked(relay, 'eth_getTransactionCount', [wallet.address, 'latest']));
    expect(nonce).to.equal(await wallet.getNonce());
    expect(Number(await checked(relay, 'eth_getTransactionCount', [wallet.address, blockHex]))).to.equal(1);
    expect(await checked(relay, 'eth_getBalance', [`0x${'12'.repeat(20)}`, 'latest'])).to.equal('0x0');

    const logs = await checked(relay, 'eth_getLogs', [{ address, fromBlock: blockHex, toBlock: 'latest' }]);
    expect(logs).to.have.length(1);
    expect(logs[0].transactionHash).to.equal(greetReceipt.hash);
    const topic = contract.interface.getEvent('Greeted')!.topicHash;
    expect(await checked(relay, 'eth_getLogs', [{ topics: [topic], blockHash: greetReceipt.blockHash }])).to.deep.equal(logs);
    // An empty list matches both branches of the spec's FilterResults oneOf, so only its value is checked.
    expect(await result(relay, 'eth_getLogs', [{ topics: [`0x${'00'.repeat(32)}`], fromBlock: blockHex }])).to.deep.equal([]);

    const data = contract.interface.encodeFunctionData('greeting');
    const returned = await checked(relay, 'eth_call', [{ to: address, data }, 'latest']);
    expect(contract.interface.decodeFunctionResult('greeting', returned)[0]).to.equal('hi');
    const old = await checked(relay, 'eth_call', [{ to: address, data }, blockHex]);
    expect(contract.interface.decodeFunctionResult('greeting', old)[0]).to.equal('hello');
    expect(Number(await checked(relay, 'eth_estimateGas', [{ from: wallet.address, to: address, data: contract.interface.encodeFunctionData('greet', ['x']) }]))).to.be.greaterThan(21_000);
    const history = await checked(relay, 'eth_feeHistory', ['0x3', 'latest', [25, 75]]);
    expect(history.gasUsedRatio).to.have.length(3);
    expect(history.reward).to.have.length(3);
  });

  it('never reports a head older than a block it has served, and reads a named block past its cached head', async () => {
    // Relays that would keep `latest` for a minute: the head they cache must not hide blocks they can see.
    const sawReceipt = testRelay(CHAIN_ID, { mirrorUrl: sandbox.mirrorUrl }, { latestCacheMs: 60_000 });
    const sawNothing = testRelay(CHAIN_ID, { mirrorUrl: sandbox.mirrorUrl }, { latestCacheMs: 60_000 });
    try {
      const staleHead = Number(await result(sawReceipt, 'eth_blockNumber', []));
      await result(sawNothing, 'eth_blockNumber', []);
      const receipt = (await (await contract.greet('head')).wait())!;
      expect(receipt.blockNumber).to.be.greaterThan(staleHead);
      const served = await result(sawReceipt, 'eth_getTransactionReceipt', [receipt.hash]);
      expect(Number(await result(sawReceipt, 'eth_blockNumber', []))).to.be.at.least(Number(served.blockNumber));
      const block = `0x${receipt.blockNumber.toString(16)}`;
      for (const relayOf of [sawReceipt, sawNothing]) {
        const logs = await result(relayOf, 'eth_getLogs', [{ address: await contract.getAddress(), fromBlock: block, toBlock: block }]);
        expect(logs.map((l: { transactionHash: string }) => l.transactionHash)).to.deep.equal([receipt.hash]);
      }
    } finally {
      await Promise.all([sawReceipt.close(), sawNothing.close()]);
    }
  });

  it("a relay's first two writes, sent at once, both land (the consensus client is made on the first)", async () => {
    const fresh = sandboxRelay(CHAIN_ID, sandbox);
    try {
      const price = BigInt(await result(fresh, 'eth_gasPrice'));
      const to = sandbox.accounts[1].address;
      const raws = await Promise.all(
        [2, 3].map(async (i) => {
          const signer = new Wallet(sandbox.accounts[i].privateKey, provider);
          return signer.signTransaction({ to, value: 1n, gasLimit: 30_000n, maxFeePerGas: price, maxPriorityFeePerGas: 0n, chainId: CHAIN_ID, nonce: await signer.getNonce(), type: 2 });
        }),
      );
      const hashes = await Promise.all(raws.map((raw) => result(fresh, 'eth_sendRawTransaction', [raw])));
      for (const hash of hashes) expect((await result(fresh, 'eth_getTransactionReceipt', [hash])).status).to.equal('0x1');
    } finally {
      await fresh.close();
    }
  });

  it('a revert in eth_call is error code 3 with the revert data', async () => {
    const outcome = await call(relay, 'eth_call', [{ to: await contract.getAddress(), data: contract.interface.encodeFunctionData('fail') }, 'latest']);
    expect(outcome).to.have.nested.property('error.code', 3);
    const error = (outcome as any).error;
    expect(error.message).to.equal('execution reverted: nope');
    expect(contract.interface.parseError(error.data)?.args[0]).to.equal('nope');
  });

  it('a transaction that reverts on the ledger is mined with receipt status 0 and its revert reason, as the official relay has it', async () => {
    const tx = await wallet.sendTransaction({ to: await contract.getAddress(), data: contract.interface.encodeFunctionData('fail'), gasLimit: 100_000n });
    const failed = await tx.wait().catch((e) => e.receipt);
    expect(failed.status).to.equal(0);
    // `revertReason` is the official relay's field beyond the OpenRPC receipt, so the receipt is not checked against it.
    const receipt = await result(relay, 'eth_getTransactionReceipt', [tx.hash]);
    expect(receipt.status).to.equal('0x0');
    expect(contract.interface.parseError(receipt.revertReason)?.args[0]).to.equal('nope');
    const [inBlock] = await result(relay, 'eth_getBlockReceipts', [receipt.blockNumber]);
    expect(inBlock.revertReason).to.equal(receipt.revertReason);
  });

  it('call data larger than a normal ledger transaction goes in one jumbo EthereumTransaction', async () => {
    const { abi, bytecode } = greeter();
    const blob = `0x${'ab'.repeat(6_000)}`;
    const before = sandbox.chain.transactions().length;
    const big = await new ContractFactory(abi, bytecode, wallet).deploy('big', blob, { gasLimit: 8_000_000n });
    await big.waitForDeployment();
    expect(await (big as unknown as Contract).blob()).to.equal(blob);
    expect(sandbox.chain.transactions().slice(before).map((t: { name: string }) => t.name)).to.deep.equal(['ETHEREUMTRANSACTION']);
  });

  describe('eth_sendRawTransaction prechecks, before anything is spent', () => {
    let base: { to: string; gasLimit: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; chainId: number; nonce: number; type: 2 };
    let ledgerTransactions: number;

    beforeEach(async () => {
      const price = BigInt(await result(relay, 'eth_gasPrice'));
      base = { to: sandbox.accounts[1].address, gasLimit: 30_000n, maxFeePerGas: price, maxPriorityFeePerGas: 0n, chainId: CHAIN_ID, nonce: await wallet.getNonce(), type: 2 };
      ledgerTransactions = sandbox.chain.transactions().length;
    });
    afterEach(() => {
      expect(sandbox.chain.transactions().length, 'nothing reached the consensus node').to.equal(ledgerTransactions);
    });

    async function rejected(tx: Partial<typeof base> & { value?: bigint; data?: string }, signer: Wallet = wallet) {
      const raw = await signer.signTransaction({ ...base, ...tx });
      const outcome = await call(relay, 'eth_sendRawTransaction', [raw]);
      expect(outcome).to.have.property('error');
      return (outcome as any).error as { code: number; message: string };
    }

    // Codes and messages are the official relay's (its JsonRpcError predefined catalogue and Precheck).
    it('wrong chain id', async () => {
      expect(await rejected({ chainId: 1 })).to.deep.equal({ code: -32000, message: 'ChainId (0x1) not supported. The correct chainId is 0x128' });
    });
    it('size over the limit, checked before the bytes are decoded', async () => {
      const outcome = await call(relay, 'eth_sendRawTransaction', [`0x02${'01'.repeat(140_000)}`]);
      expect(outcome).to.have.nested.property('error.code', -32201);
    });
    it('gas limit above the maximum and below the intrinsic gas', async () => {
      expect(await rejected({ gasLimit: 15_000_001n })).to.deep.equal({ code: -32005, message: "Transaction gas limit '15000001' exceeds max gas per sec limit '15000000'" });
      expect(await rejected({ gasLimit: 21_000n, data: '0xffff' })).to.deep.equal({
        code: -32003,
        message: "Transaction gas limit provided '21000' is insufficient of intrinsic gas required '21032'",
      });
    });
    it('gas price below the network fee', async () => {
      const offered = base.maxFeePerGas - 1n;
      expect(await rejected({ maxFeePerGas: offered })).to.deep.equal({ code: -32009, message: `Gas price '${offered}' is below configured minimum gas price '${base.maxFeePerGas}'` });
    });
    it('nonce too low and too high', async () => {
      const n = base.nonce;
      expect(await rejected({ nonce: n - 1 })).to.deep.equal({ code: -32000, message: `Nonce too low. Provided nonce: ${n - 1}, current nonce: ${n}` });
      expect(await rejected({ nonce: n + 5 })).to.deep.equal({ code: -32000, message: `Nonce too high. Provided nonce: ${n + 5}, current nonce: ${n}` });
    });
    it('a duplicate of a transaction that has landed is a nonce too low', async () => {
      const raw = await wallet.signTransaction({ ...base, value: 10n ** 10n });
      await result(relay, 'eth_sendRawTransaction', [raw]);
      ledgerTransactions = sandbox.chain.transactions().length;
      const again = await call(relay, 'eth_sendRawTransaction', [raw]);
      expect(again).to.deep.equal({ error: { code: -32000, message: `Nonce too low. Provided nonce: ${base.nonce}, current nonce: ${base.nonce + 1}` } });
    });
    it('balance below value plus gas', async () => {
      const balance = await provider.getBalance(wallet.address);
      expect(await rejected({ value: balance })).to.deep.equal({ code: -32000, message: 'Insufficient funds for transfer' });
    });
    it('a sender without an account', async () => {
      const stranger = new Wallet(Wallet.createRandom().privateKey);
      expect(await rejected({ nonce: 0 }, stranger)).to.deep.equal({ code: -32001, message: `Requested resource not found. address '${stranger.address}'.` });
    });
    it('init code over the EVM limit (EIP-3860)', async () => {
      const initcode = `0x${'00'.repeat(49_153)}`;
      expect(await rejected({ to: undefined, data: initcode, gasLimit: 3_000_000n })).to.deep.equal({
        code: -32201,
        message: 'Oversized data: initcode size 49153, initcode size limit 49152',
      });
    });
    it('bytes that are not a signed transaction', async () => {
      const unsigned = Transaction.from({ ...base }).unsignedSerialized;
      for (const raw of ['0x1234', unsigned]) {
        const outcome = await call(relay, 'eth_sendRawTransaction', [raw]);
        expect(outcome).to.have.nested.property('error.code', -32602);
      }
    });
  });
});
