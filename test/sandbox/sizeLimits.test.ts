/**
 * The sandbox consensus node's size limits, through the real SDK: 6,144 bytes for any transaction, 133,120 for a
 * jumbo EthereumTransaction (hiero consensus node HederaConfig / JumboTransactionsConfig defaults, HIP-1086), and
 * TRANSACTION_OVERSIZE at precheck beyond them. Nothing oversize is recorded.
 */
import { AccountId, Client, EthereumTransaction, FileCreateTransaction, Hbar, PrecheckStatusError, PrivateKey } from '@hashgraph/sdk';
import { expect } from 'chai';
import { startLedgerSandbox, type LedgerSandbox } from '../../src/sandbox/index.js';

const CHAIN_ID = 298;

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
  });
}
