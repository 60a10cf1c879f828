/**
 * EthereumTransactions to long-zero addresses of ids no account has (`0x000…` + the entity number, past the system
 * accounts), as the official equivalence suite sends them through the relay: the consensus node never creates an
 * account there. Value sent there would lazy-create one, which hiero-consensus-node refuses for long-zero addresses
 * (`CustomMessageCallProcessor.doTransferValueOrHalt` → `ProxyWorldUpdater.tryLazyCreation`: INVALID_ALIAS_KEY,
 * the frame's remaining gas taken by `doHalt` for a lazy creation); without value the call runs as an empty success
 * (`contracts.evm.allowCallsToNonContractAccounts`), and lazy creation needs value (`CustomCallOperation`). Either
 * way the result is filed under the number the address names (`FrameRunner.computeRecipientMetadata`: a long-zero
 * recipient is its numbered contract id). The consensus-node ContractCall path is pinned in contracts.test.ts.
 */
import { expect } from 'chai';
import { Wallet, keccak256, type TransactionRequest } from 'ethers';
import { sandboxAccounts } from '../src/accounts.js';
import { LedgerChain } from '../src/ledger/chain.js';
import { startMirrorNode, type MirrorNode } from '../src/mirror/server.js';
import { submitSigned } from './submitSigned.js';

const CHAIN_ID = 298;
const WEIBAR = 10_000_000_000n;
const NETWORK_PRICE = 71n;
/** 0.0.5001 and 0.0.5002: past 0.0.750 and past every account the sandbox makes. */
const NO_ACCOUNT = '0x0000000000000000000000000000000000001389';
const NO_ACCOUNT_EITHER = '0x000000000000000000000000000000000000138a';

describe('sandbox ledger: EthereumTransactions to long-zero addresses without an account', function () {
  let chain: LedgerChain;
  let mirror: MirrorNode;
  const [sender] = sandboxAccounts(1);
  let nonce = 0;
  const weibar = async (address: string) => BigInt((await chain.evm.request({ method: 'eth_getBalance', params: [address, 'latest'] })) as string);

  async function send(tx: TransactionRequest) {
    const signed = await new Wallet(sender.privateKey).signTransaction({ chainId: CHAIN_ID, nonce: nonce++, type: 2, maxFeePerGas: 2_000n * WEIBAR, maxPriorityFeePerGas: 0n, ...tx });
    expect(await submitSigned(chain, signed)).to.equal('OK');
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

  it('halts value sent there with INVALID_ALIAS_KEY: the whole gas limit charged, no value moved, no account made', async () => {
    const before = await weibar(sender.address);
    const accounts = chain.accounts().length;
    const tx = await send({ to: NO_ACCOUNT, value: 5n * WEIBAR, gasLimit: 30_000 });
    expect(tx).to.include({ result: 'INVALID_ALIAS_KEY', gasUsed: 30_000 });
    expect(before - (await weibar(sender.address))).to.equal(30_000n * NETWORK_PRICE * WEIBAR);
    expect(await weibar(NO_ACCOUNT)).to.equal(0n);
    expect(chain.account(NO_ACCOUNT)).to.equal(undefined);
    expect(chain.accounts().length).to.equal(accounts);
    expect(tx.transfers.some((t) => t.amount === 5)).to.equal(false);
    const result = (await (await fetch(`${mirror.url}/api/v1/contracts/results/${tx.ethHash}`)).json()) as Record<string, unknown>;
    expect(result).to.include({ result: 'INVALID_ALIAS_KEY', error_message: 'INVALID_ALIAS_KEY', gas_used: 30_000, contract_id: '0.0.5001' });
    // The halted transaction still used its nonce, as any executed one.
    expect((await send({ to: sender.address, gasLimit: 21_000 })).result).to.equal('SUCCESS');
  });

  it('runs a call without value there as an empty success, under that id, and makes no account either', async () => {
    const accounts = chain.accounts().length;
    const tx = await send({ to: NO_ACCOUNT_EITHER, gasLimit: 30_000 });
    expect(tx.result).to.equal('SUCCESS');
    expect(chain.account(NO_ACCOUNT_EITHER)).to.equal(undefined);
    expect(chain.accounts().length).to.equal(accounts);
    const result = (await (await fetch(`${mirror.url}/api/v1/contracts/results/${tx.ethHash}`)).json()) as Record<string, unknown>;
    expect(result).to.include({ result: 'SUCCESS', contract_id: '0.0.5002' });
  });
});
