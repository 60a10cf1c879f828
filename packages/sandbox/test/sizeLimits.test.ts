/**
 * The sandbox consensus node's size limits, through the real SDK: 6,144 bytes for any transaction, 133,120 for a
 * jumbo EthereumTransaction (hiero consensus node HederaConfig / JumboTransactionsConfig defaults, HIP-1086), and
 * TRANSACTION_OVERSIZE at precheck beyond them. Nothing oversize is recorded.
 */
import { AccountId, Client, EthereumTransaction, FileAppendTransaction, FileCreateTransaction, Hbar, PrecheckStatusError, PrivateKey } from '@hashgraph/sdk';
import { expect } from 'chai';
import { Transaction, Wallet } from 'ethers';
import { startLedgerSandbox, type LedgerSandbox } from '../src/index.js';

const CHAIN_ID = 298;
const GAS_PRICE = 710_000_000_000n; // the ledger's 71 tinybar per gas, in weibar

async function precheckOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    if (err instanceof PrecheckStatusError) return err.status.toString();
    throw err;
  }
}

/** Ethereum data of the given size: the node checks the size before it decodes anything. */
const ethereumOfSize = (bytes: number) => new EthereumTransaction().setEthereumData(new Uint8Array(bytes).fill(1)).setMaxGasAllowanceHbar(new Hbar(1));

for (const jumbo of [true, false]) {
  describe(`sandbox consensus node size limits, ${jumbo ? 'with' : 'without'} jumbo transactions`, () => {
    let sandbox: LedgerSandbox;
    let client: Client;
    before(async () => {
      sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0, jumboTransactions: jumbo });
      client = Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(
        AccountId.fromString(sandbox.operator.accountId),
        PrivateKey.fromStringDer(sandbox.operator.privateKey),
      );
      // The 64 file chunks below each wait for a receipt: the SDK's 250 ms first back-off would make that half a minute.
      client.setMinBackoff(25);
    });
    after(async () => {
      client?.close();
      await sandbox?.close();
    });

    it('refuses a transaction of another type above 6,144 bytes', async () => {
      expect(await precheckOf(new FileCreateTransaction().setContents(new Uint8Array(6_500).fill(7)).execute(client))).to.equal('TRANSACTION_OVERSIZE');
      const small = await new FileCreateTransaction().setContents(new Uint8Array(5_000).fill(7)).execute(client);
      expect((await small.getReceipt(client)).status.toString()).to.equal('SUCCESS');
    });

    it(`${jumbo ? 'takes' : 'refuses'} an EthereumTransaction of 10 KiB, and refuses one of 134,000 bytes`, async () => {
      const before = sandbox.chain.transactions().length;
      // Past the size check, these bytes are no Ethereum transaction: that precheck answer shows the size passed.
      expect(await precheckOf(ethereumOfSize(10_240).execute(client))).to.equal(jumbo ? 'INVALID_ETHEREUM_TRANSACTION' : 'TRANSACTION_OVERSIZE');
      expect(await precheckOf(ethereumOfSize(134_000).execute(client))).to.equal('TRANSACTION_OVERSIZE');
      expect(sandbox.chain.transactions().length).to.equal(before);
    });

    it('fails an EthereumTransaction whose call data from a file is over 131,072 bytes with TRANSACTION_OVERSIZE', async () => {
      const wallet = new Wallet(sandbox.accounts[0].privateKey);
      const nonce = Number(await sandbox.chain.evm.request({ method: 'eth_getTransactionCount', params: [wallet.address, 'latest'] }));
      const hex = 'ab'.repeat(131_073);
      const raw = await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce, gasLimit: 15_000_000, maxFeePerGas: GAS_PRICE, maxPriorityFeePerGas: 0, to: wallet.address, data: `0x${hex}` });
      const created = await (await new FileCreateTransaction().setKeys([client.operatorPublicKey!]).setContents(hex.slice(0, 4_000)).execute(client)).getReceipt(client);
      await (await new FileAppendTransaction().setFileId(created.fileId!).setContents(hex.slice(4_000)).setMaxChunks(100).execute(client)).getReceipt(client);
      const stripped = Transaction.from(raw);
      stripped.data = '0x';
      const response = await ethereumOfSize(0).setEthereumData(Buffer.from(stripped.serialized.slice(2), 'hex')).setCallDataFileId(created.fileId!).execute(client);
      const status = await response.getReceipt(client).then(
        (r) => r.status.toString(),
        (err: { status?: { toString(): string } }) => err.status?.toString(),
      );
      expect(status).to.equal('TRANSACTION_OVERSIZE');
    });
  });
}
