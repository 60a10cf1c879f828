/**
 * eth_sendRawTransactionSync (EIP-7966) through the gateway with viem's sendRawTransactionSync: on the ledger relay
 * (sandbox), on an EVM upstream that has the method (anvil: forwarded) and on one without it (the sandbox's devnet,
 * EDR: emulated by send and receipt polls). When nothing mines in time the answer is error 4 with the hash, which
 * then lands. A sync send is one write against the key's write budget.
 */
import { expect } from 'chai';
import { createPublicClient, http, type Hex } from 'viem';
import { sendRawTransactionSync } from 'viem/actions';
import { Wallet, keccak256 } from 'ethers';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startDevnet, type Devnet } from '../../packages/sandbox/src/devnet.js';
import { ANVIL_CHAIN_ID, startAnvil, type Anvil } from '../support/anvil.js';
import { rpc, startTestGateway, withLedgerNetwork, type TestGateway } from '../support/gateway.js';
import { needTool, TOOLS } from '../support/services.js';
import { UpstreamProxy } from '../support/upstreamProxy.js';

const DEVNET_CHAIN_ID = 11155111;
const STALLED_CHAIN_ID = 17000;
const LEDGER_CHAIN_ID = 296;
/** The gateway's wait when a call names none: anvil 1.7 takes no timeout parameter, so its calls wait this long. */
const DEFAULT_WAIT_MS = 1_500;
const MAX_WAIT_MS = 3_000;

describe('eth_sendRawTransactionSync through the gateway', function () {
  this.timeout(120_000);
  let anvil: Anvil | undefined;
  let stalledAnvil: Anvil | undefined;
  let recorder: UpstreamProxy;
  let stalledDevnet: Devnet;
  let t: TestGateway;

  before(async function () {
    const binary = needTool(this, TOOLS.anvil);
    [anvil, stalledAnvil, stalledDevnet] = await Promise.all([
      startAnvil(binary),
      startAnvil(binary, ['--no-mining']),
      startDevnet({ chainId: STALLED_CHAIN_ID }),
    ]);
    await stalledDevnet.evm.request({ method: 'evm_setAutomine', params: [false] });
    recorder = await UpstreamProxy.start(anvil.url);
    t = await startTestGateway({
      chains: {
        ...withLedgerNetwork('testnet', { chainId: LEDGER_CHAIN_ID, apis: ['rpc'] }),
        ethereum: {
          displayName: 'Ethereum',
          networks: {
            mainnet: { chainId: ANVIL_CHAIN_ID, upstreams: [recorder.url] },
            hoodi: { chainId: ANVIL_CHAIN_ID, upstreams: [stalledAnvil.url] },
            sepolia: { chainId: DEVNET_CHAIN_ID },
            holesky: { chainId: STALLED_CHAIN_ID, upstreams: [stalledDevnet.url], writesPerSecond: 0.1 },
          },
        },
      },
      // Record files close every second: a 1 ms wait ends before any receipt can exist.
      sandbox: { blockIntervalMs: 1_000 },
      relay: { sendSyncDefaultMs: DEFAULT_WAIT_MS, sendSyncMaxMs: MAX_WAIT_MS },
    });
  });
  after(async () => {
    await t?.close();
    await recorder?.close();
    await stalledDevnet?.close();
    anvil?.child.kill();
    stalledAnvil?.child.kill();
  });

  const url = (network: string, key = t.key) => `${t.gw.url}/${network}/v1/${key}/rpc`;
  const client = (network: string, key?: string) => createPublicClient({ transport: http(url(network, key), { retryCount: 0 }) });

  /** A value transfer to itself, signed for `network` at the sender's next nonce. */
  async function transfer(network: string, privateKey: string, chainId: number): Promise<Hex> {
    const wallet = new Wallet(privateKey);
    const [nonce, price] = await Promise.all(
      [['eth_getTransactionCount', [wallet.address, 'pending']], ['eth_gasPrice', []]].map(async ([method, params]) => {
        const { json } = await rpc(url(network), { jsonrpc: '2.0', id: 1, method, params });
        return BigInt(json.result);
      }),
    );
    return (await wallet.signTransaction({ type: 2, chainId, nonce: Number(nonce), gasLimit: 21_000n, maxFeePerGas: price * 2n, maxPriorityFeePerGas: 0n, to: wallet.address, value: 1n })) as Hex;
  }

  it('on the ledger relay: the receipt in one call, with viem', async () => {
    const raw = await transfer('hedera-testnet', sandboxAccounts()[0].privateKey, LEDGER_CHAIN_ID);
    const receipt = await sendRawTransactionSync(client('hedera-testnet'), { serializedTransaction: raw, timeout: MAX_WAIT_MS });
    expect(receipt.status).to.equal('success');
    expect(receipt.transactionHash).to.equal(keccak256(raw));
    expect(receipt.blockNumber > 0n).to.equal(true);
  });

  it('on the ledger relay: error 4 with the hash when the receipt is not in within the wait, and the transaction lands', async () => {
    const raw = await transfer('hedera-testnet', sandboxAccounts()[1].privateKey, LEDGER_CHAIN_ID);
    const { json } = await rpc(url('hedera-testnet'), { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransactionSync', params: [raw, 1] });
    expect(json.error).to.include({ code: 4, data: keccak256(raw) });
    const receipt = await createPublicClient({ transport: http(url('hedera-testnet')) }).waitForTransactionReceipt({ hash: keccak256(raw) as Hex, pollingInterval: 100 });
    expect(receipt.status).to.equal('success');
  });

  it('on an EVM upstream that has the method (anvil): forwarded, with viem', async () => {
    const before = recorder.methods().length;
    const raw = await transfer('ethereum', anvil!.keys[0], ANVIL_CHAIN_ID);
    const receipt = await sendRawTransactionSync(client('ethereum'), { serializedTransaction: raw });
    expect(receipt.status).to.equal('success');
    expect(receipt.transactionHash).to.equal(keccak256(raw));
    const sent = recorder.methods().slice(before).filter((m) => m.startsWith('eth_send'));
    expect(sent).to.deep.equal(['eth_sendRawTransactionSync']);
  });

  it('on an EVM upstream that has the method but mines nothing: error 4 with the hash after the gateway\'s wait', async () => {
    const raw = await transfer('ethereum-hoodi', stalledAnvil!.keys[0], ANVIL_CHAIN_ID);
    const { json } = await rpc(url('ethereum-hoodi'), { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransactionSync', params: [raw] });
    expect(json.error).to.include({ code: 4, data: keccak256(raw), message: `The transaction was submitted but not processed in time: waited ${DEFAULT_WAIT_MS} ms` });
  });

  it("on an EVM upstream without the method (the sandbox's devnet): emulated, with viem", async () => {
    const raw = await transfer('ethereum-sepolia', sandboxAccounts()[0].privateKey, DEVNET_CHAIN_ID);
    const receipt = await sendRawTransactionSync(client('ethereum-sepolia'), { serializedTransaction: raw, timeout: 3_000 });
    expect(receipt.status).to.equal('success');
    expect(receipt.transactionHash).to.equal(keccak256(raw));
  });

  it('emulated on an upstream that mines nothing: error 4 with the hash, and the transaction is mined later', async () => {
    const raw = await transfer('ethereum-holesky', sandboxAccounts()[0].privateKey, STALLED_CHAIN_ID);
    const { json } = await rpc(url('ethereum-holesky', (await t.newKey()).key), { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransactionSync', params: [raw, '0xc8'] });
    expect(json.error).to.include({ code: 4, data: keccak256(raw) });
    await stalledDevnet.evm.request({ method: 'evm_mine', params: [] });
    const receipt = await rpc(url('ethereum-holesky'), { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [keccak256(raw)] });
    expect(receipt.json.result).to.include({ status: '0x1' });
  });

  it('cuts a longer timeout to relay.sendSyncMaxMs', async () => {
    const raw = await transfer('ethereum-holesky', sandboxAccounts()[2].privateKey, STALLED_CHAIN_ID);
    const { json } = await rpc(url('ethereum-holesky', (await t.newKey()).key), { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransactionSync', params: [raw, 600_000] });
    expect(json.error).to.include({ code: 4, data: keccak256(raw), message: `The transaction was submitted but not processed in time: waited ${MAX_WAIT_MS} ms` });
  });

  it("counts once against the key's write budget, as one write", async () => {
    const { key } = await t.newKey('developer', []);
    const raw = await transfer('ethereum-holesky', sandboxAccounts()[1].privateKey, STALLED_CHAIN_ID);
    const first = await rpc(url('ethereum-holesky', key), { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransactionSync', params: [raw, 50] });
    expect(first.json.error).to.include({ code: 4 });
    // One write per 10 s on this network: the sync send took it, so the next write of either kind is refused.
    for (const method of ['eth_sendRawTransactionSync', 'eth_sendRawTransaction']) {
      const next = await rpc(url('ethereum-holesky', key), { jsonrpc: '2.0', id: 1, method, params: [raw] });
      expect(next.json.error, method).to.include({ code: -32005 });
    }
    const read = await rpc(url('ethereum-holesky', key), { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
    expect(read.json).to.have.property('result');
  });
});
