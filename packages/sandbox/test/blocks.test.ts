import { AccountId, Client, EthereumTransaction, PrivateKey, Status } from '@hashgraph/sdk';
import { expect } from 'chai';
import { Wallet } from 'ethers';
import { once } from 'node:events';
import { startLedgerSandbox, type LedgerSandbox } from '../src/index.js';
import type { LedgerBlock } from '../src/ledger/view.js';

describe('sandbox: ledger record-file blocks on an interval', () => {
  let sandbox: LedgerSandbox;
  let client: Client;

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: 296, blockIntervalMs: 100 });
    client = Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(
      AccountId.fromString(sandbox.operator.accountId),
      PrivateKey.fromStringDer(sandbox.operator.privateKey),
    );
  });
  after(async () => {
    client?.close();
    await sandbox?.close();
  });

  it('closes blocks without transactions too, each the EVM block of the same number', async () => {
    const [block] = (await once(sandbox.chain, 'block')) as [LedgerBlock];
    expect(block.count).to.equal(0);
    // The block-file reader's empty block: one instant.
    expect(block.timestampFrom).to.equal(block.timestampTo);
    const evm = (await sandbox.chain.evm.request({ method: 'eth_getBlockByNumber', params: [`0x${block.number.toString(16)}`, false] })) as { hash: string };
    expect(block.hash).to.have.length(98);
    expect(block.hash.slice(0, 66)).to.equal(evm.hash);
    expect(sandbox.chain.blockByHash(evm.hash)).to.equal(block);
    expect(block.previousHash).to.equal(sandbox.chain.blockByNumber(block.number - 1)!.hash);
  });

  it('answers the receipt once the block holding the transaction closes; the block runs from its first transaction\'s consensus timestamp to its last\'s', async () => {
    const wallet = new Wallet(sandbox.accounts[3].privateKey);
    const raw = await wallet.signTransaction({ type: 2, chainId: 296, nonce: 0, gasLimit: 21_000, maxFeePerGas: 710_000_000_000n, maxPriorityFeePerGas: 0, to: sandbox.accounts[4].address, value: 1n });
    const response = await new EthereumTransaction().setEthereumData(Buffer.from(raw.slice(2), 'hex')).execute(client);
    expect((await response.getReceipt(client)).status).to.equal(Status.Success);
    const tx = sandbox.chain.transactions().at(-1)!;
    const block = sandbox.chain.blockByNumber(tx.blockNumber)!;
    const ns = (t: string) => BigInt(t.replace('.', ''));
    expect(ns(block.timestampFrom) <= ns(tx.consensusTimestamp) && ns(tx.consensusTimestamp) <= ns(block.timestampTo)).to.equal(true);
    // The mirror node's importer: a record file starts at its first transaction and ends at its last.
    expect(block.count).to.equal(1);
    expect([block.timestampFrom, block.timestampTo]).to.deep.equal([tx.consensusTimestamp, tx.consensusTimestamp]);
    expect(ns(block.timestampFrom) > ns(sandbox.chain.blockByNumber(tx.blockNumber - 1)!.timestampTo)).to.equal(true);
    expect(block.name).to.match(/^\d{4}-\d\d-\d\dT\d\d_\d\d_\d\d\.\d{9}Z\.rcd\.gz$/);
  });
});
