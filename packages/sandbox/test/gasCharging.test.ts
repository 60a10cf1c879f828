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
/** The EthereumTransaction's own fee, which its payer (the relayer) pays. */
const ETHEREUM_FEE = 100_000n;

describe('sandbox ledger: EVM gas is charged at the network price', function () {
  /** A network refunding all unused gas (the default) and one keeping 80% of the limit at least. */
  const chains: { full?: LedgerChain; capped?: LedgerChain } = {};
  let mirror: MirrorNode;
  const [a, b, c, d] = sandboxAccounts(4);
  const tinybar = async (chain: LedgerChain, address: string) =>
    BigInt((await chain.evm.request({ method: 'eth_getBalance', params: [address, 'latest'] })) as string) / WEIBAR;
  const operatorAddress = (chain: LedgerChain) => chain.account(chain.operator.accountId)!.evmAddress;

  async function send(chain: LedgerChain, key: string, tx: TransactionRequest, maxGasAllowanceTinybar = 0n) {
    const signed = await new Wallet(key).signTransaction({ chainId: CHAIN_ID, nonce: 0, to: d.address, ...tx });
    const status = await submitSigned(chain, signed, maxGasAllowanceTinybar);
    expect(status).to.equal('OK');
    await chain.closeBlock();
    return chain.transactionByEthHash(keccak256(signed))!;
  }

  before(async () => {
    chains.full = await LedgerChain.create({ chainId: CHAIN_ID, blockIntervalMs: 3_600_000 });
    chains.capped = await LedgerChain.create({ chainId: CHAIN_ID, blockIntervalMs: 3_600_000, maxRefundPercentOfGasLimit: 20 });
    mirror = await startMirrorNode(chains.full);
  });
  after(async () => {
    await mirror?.close();
    await chains.full?.close();
    await chains.capped?.close();
  });

  it('charges a sender offering far more than the network price only the network price, so a small balance suffices', async () => {
    const chain = chains.full!;
    // One hbar: 21,000 gas at the offered 1,250,000 tinybar would cost 262 hbar, at the network's 71 it costs 0.015.
    await chain.evm.request({ method: 'hardhat_setBalance', params: [a.address, `0x${(100_000_000n * WEIBAR).toString(16)}`] });
    const tx = await send(chain, a.privateKey, { type: 0, gasLimit: 21_000, gasPrice: 1_250_000n * WEIBAR, value: WEIBAR });
    expect(tx.result).to.equal('SUCCESS');
    const fee = 21_000n * NETWORK_PRICE;
    expect(await tinybar(chain, a.address)).to.equal(100_000_000n - fee - 1n);
    expect(tx.transfers).to.deep.include({ account: chain.account(a.address)!.id, amount: -Number(fee + 1n) });
    expect(tx.transfers).to.deep.include({ account: FEE_COLLECTOR_ACCOUNT, amount: Number(fee + ETHEREUM_FEE) });
  });

  it('refunds all unused gas by default: the mirror’s gas_used, gas_consumed and block gas_used are the gas used', async () => {
    const chain = chains.full!;
    const before = await tinybar(chain, b.address);
    const tx = await send(chain, b.privateKey, { type: 2, gasLimit: 100_000, maxFeePerGas: 2_000n * WEIBAR, maxPriorityFeePerGas: 0n });
    expect(tx.result).to.equal('SUCCESS');
    expect(before - (await tinybar(chain, b.address))).to.equal(21_000n * NETWORK_PRICE);
    const result = (await (await fetch(`${mirror.url}/api/v1/contracts/results/${tx.ethHash}`)).json()) as Record<string, unknown>;
    expect(result).to.include({ gas_used: 21_000, gas_consumed: 21_000, gas_limit: 100_000 });
    const block = (await (await fetch(`${mirror.url}/api/v1/blocks/${tx.blockNumber}`)).json()) as Record<string, unknown>;
    expect(block.gas_used).to.equal(21_000);
  });

  it('keeps 80% of the limit at least where maxRefundPercentOfGasLimit is 20, and records that as the gas used', async () => {
    const chain = chains.capped!;
    const before = await tinybar(chain, b.address);
    const tx = await send(chain, b.privateKey, { type: 2, gasLimit: 100_000, maxFeePerGas: 2_000n * WEIBAR, maxPriorityFeePerGas: 0n });
    expect(tx).to.include({ result: 'SUCCESS', gasUsed: 80_000 });
    expect(before - (await tinybar(chain, b.address))).to.equal(80_000n * NETWORK_PRICE);
    expect(chain.blockByNumber(tx.blockNumber)!.gasUsed).to.equal(80_000);
  });

  it('splits the charge with the relayer when the sender offers less than the network price, refunding the relayer first', async () => {
    const chain = chains.capped!;
    const sender = await tinybar(chain, c.address);
    const relayer = await tinybar(chain, operatorAddress(chain));
    // 30 of the 71 tinybar from the sender, 41 from the relayer's allowance, on 100,000 gas; the 20,000 refunded at 71
    // (1,420,000) go to the relayer, which paid 4,100,000.
    const tx = await send(chain, c.privateKey, { type: 0, gasLimit: 100_000, gasPrice: 30n * WEIBAR }, 10n ** 8n);
    expect(tx.result).to.equal('SUCCESS');
    expect(sender - (await tinybar(chain, c.address))).to.equal(3_000_000n);
    const relayerGas = 4_100_000n - 1_420_000n;
    expect(tx.chargedTxFeeTinybar).to.equal(Number(ETHEREUM_FEE + 3_000_000n + relayerGas));
    expect(relayer - (await tinybar(chain, operatorAddress(chain)))).to.equal(ETHEREUM_FEE + relayerGas);
    expect(tx.transfers).to.deep.include({ account: FEE_COLLECTOR_ACCOUNT, amount: tx.chargedTxFeeTinybar });
  });

  it('refuses a relayer allowance short of its share with INSUFFICIENT_TX_FEE, before the EVM', async () => {
    const tx = await send(chains.full!, d.privateKey, { type: 0, gasLimit: 100_000, gasPrice: 30n * WEIBAR, to: c.address }, 4_099_999n);
    expect(tx).to.include({ result: 'INSUFFICIENT_TX_FEE', evmExecuted: false });
  });
});
