import { expect } from 'chai';
import { Wallet, keccak256, type TransactionRequest } from 'ethers';
import { sandboxAccounts } from '../src/accounts.js';
import { FEE_COLLECTOR_ACCOUNT, LedgerChain } from '../src/ledger/chain.js';
import { startMirrorNode, type MirrorNode } from '../src/mirror/server.js';
import { submitSigned } from './submitSigned.js';

const CHAIN_ID = 298;
const WEIBAR = 10_000_000_000n;
/** The sandbox's network gas price, tinybar per gas (what /network/fees reports). */
const NETWORK_PRICE = 71n;

describe('sandbox ledger: gas is charged at the network price, on at least 80% of the limit', function () {
  let chain: LedgerChain;
  let mirror: MirrorNode;
  const [a, b, c, d] = sandboxAccounts(4);
  const tinybar = async (address: string) => BigInt((await chain.evm.request({ method: 'eth_getBalance', params: [address, 'latest'] })) as string) / WEIBAR;
  const operatorAddress = () => chain.account(chain.operator.accountId)!.evmAddress;

  async function send(key: string, tx: TransactionRequest, maxGasAllowanceTinybar = 0n) {
    const signed = await new Wallet(key).signTransaction({ chainId: CHAIN_ID, nonce: 0, to: d.address, ...tx });
    const status = await submitSigned(chain, signed, maxGasAllowanceTinybar);
    expect(status).to.equal('OK');
    await chain.closeBlock();
    return chain.transactionByEthHash(keccak256(signed))!;
  }

  before(async () => {
    chain = await LedgerChain.create({ chainId: CHAIN_ID, blockIntervalMs: 3_600_000 });
    mirror = await startMirrorNode(chain);
  });
  after(async () => {
    await mirror?.close();
    await chain?.close();
  });

  it('charges a sender offering far more than the network price only the network price, so a small balance suffices', async () => {
    // One hbar: 21,000 gas at the offered 1,250,000 tinybar would cost 262 hbar, at the network's 71 it costs 0.015.
    await chain.evm.request({ method: 'hardhat_setBalance', params: [a.address, `0x${(100_000_000n * WEIBAR).toString(16)}`] });
    const tx = await send(a.privateKey, { type: 0, gasLimit: 21_000, gasPrice: 1_250_000n * WEIBAR, value: WEIBAR });
    expect(tx.result).to.equal('SUCCESS');
    const fee = 21_000n * NETWORK_PRICE;
    expect(await tinybar(a.address)).to.equal(100_000_000n - fee - 1n);
    expect(tx.transfers).to.deep.include({ account: chain.account(a.address)!.id, amount: -Number(fee + 1n) });
    // With the relayer's fee for the EthereumTransaction itself (100,000 tinybar).
    expect(tx.transfers).to.deep.include({ account: FEE_COLLECTOR_ACCOUNT, amount: Number(fee + 100_000n) });
  });

  it('refunds unused gas only down to 80% of the limit, and the mirror shows that as gas_used, its block’s too (gas_consumed is the EVM’s)', async () => {
    const before = await tinybar(b.address);
    const tx = await send(b.privateKey, { type: 2, gasLimit: 100_000, maxFeePerGas: 2_000n * WEIBAR, maxPriorityFeePerGas: 0n });
    expect(tx.result).to.equal('SUCCESS');
    expect(before - (await tinybar(b.address))).to.equal(80_000n * NETWORK_PRICE);
    const result = (await (await fetch(`${mirror.url}/api/v1/contracts/results/${tx.ethHash}`)).json()) as Record<string, unknown>;
    expect(result).to.include({ gas_used: 80_000, gas_consumed: 21_000, gas_limit: 100_000 });
    // The block's gas is what its contract results were charged for: this one alone.
    const block = (await (await fetch(`${mirror.url}/api/v1/blocks/${tx.blockNumber}`)).json()) as Record<string, unknown>;
    expect(block.gas_used).to.equal(80_000);
  });

  it('splits the charge with the relayer when the sender offers less than the network price, refunding the relayer first', async () => {
    const sender = await tinybar(c.address);
    const relayer = await tinybar(operatorAddress());
    // 30 of the 71 tinybar from the sender, 41 from the relayer's allowance, on 100,000 gas; the 20,000 refunded at 71
    // (1,420,000) go to the relayer, which paid 4,100,000.
    const tx = await send(c.privateKey, { type: 0, gasLimit: 100_000, gasPrice: 30n * WEIBAR }, 10n ** 8n);
    expect(tx.result).to.equal('SUCCESS');
    expect(sender - (await tinybar(c.address))).to.equal(3_000_000n);
    const relayerGas = 4_100_000n - 1_420_000n;
    // The relayer also pays the EthereumTransaction's own fee (100,000 tinybar); the record's fee is all of it.
    expect(tx.chargedTxFeeTinybar).to.equal(Number(100_000n + 3_000_000n + relayerGas));
    expect(relayer - (await tinybar(operatorAddress()))).to.equal(100_000n + relayerGas);
    expect(tx.transfers).to.deep.include({ account: FEE_COLLECTOR_ACCOUNT, amount: Number(BigInt(tx.chargedTxFeeTinybar)) });
  });

  it('refuses a relayer allowance short of its share with INSUFFICIENT_TX_FEE, before the EVM', async () => {
    const tx = await send(d.privateKey, { type: 0, gasLimit: 100_000, gasPrice: 30n * WEIBAR, to: c.address }, 4_099_999n);
    expect(tx).to.include({ result: 'INSUFFICIENT_TX_FEE', evmExecuted: false });
  });
});
