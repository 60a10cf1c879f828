/**
 * Large call data on the ledger relay: one jumbo EthereumTransaction by default (HIP-1086), the file service when the
 * network lacks jumbo transactions (by config, or on the node's TRANSACTION_OVERSIZE), and the official relay's
 * -32201 answers beyond the limits. Transactions are counted on the sandbox's consensus node.
 */
import { expect } from 'chai';
import { Wallet, getCreateAddress } from 'ethers';
import type { LedgerConfig } from '../../src/config/schema.js';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { ANSWER_RUNTIME, deploymentOfSize } from '../../packages/sandbox/src/initcode.js';
import { startLedgerSandbox, type LedgerSandbox } from '../../packages/sandbox/src/index.js';
import { FEES_TINYBAR } from '../../packages/sandbox/src/ledger/chain.js';
import { rpc, startTestGateway } from '../support/gateway.js';
import { call, result, testRelay } from '../ledger/helpers.js';

const CHAIN_ID = 298;
const DEPLOYMENT_BYTES = 40 * 1024;
/** hedera-testnet, which the test gateway serves from its own sandbox. */
const GATEWAY_LEDGER_CHAIN_ID = 296;

interface Setup {
  sandbox: LedgerSandbox;
  relay: LedgerRelay;
  wallet: Wallet;
}

async function setUp(jumboNetwork: boolean, ledger: Partial<LedgerConfig> = {}): Promise<Setup> {
  const sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0, jumboTransactions: jumboNetwork });
  const relay = testRelay(CHAIN_ID, {
    mirrorUrl: sandbox.mirrorUrl,
    consensus: sandbox.consensus,
    operatorId: sandbox.operator.accountId,
    operatorKey: sandbox.operator.privateKey,
    ...ledger,
  });
  return { sandbox, relay, wallet: new Wallet(sandbox.accounts[0].privateKey) };
}

async function signed(s: Setup, data: string, gasLimit = 2_000_000n): Promise<string> {
  const [price, nonce] = await Promise.all([result(s.relay, 'eth_gasPrice'), result(s.relay, 'eth_getTransactionCount', [s.wallet.address, 'latest'])]);
  return s.wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: Number(nonce), gasLimit, maxFeePerGas: BigInt(price), maxPriorityFeePerGas: 0n, data });
}

/** Deploys `data` through the relay; returns the names of the ledger transactions it took and the contract's code. */
async function deploy(s: Setup, data: string): Promise<{ names: string[]; code: string }> {
  const before = s.sandbox.chain.transactions().length;
  const nonce = Number(await result(s.relay, 'eth_getTransactionCount', [s.wallet.address, 'latest']));
  await result(s.relay, 'eth_sendRawTransaction', [await signed(s, data)]);
  const added = s.sandbox.chain.transactions().slice(before);
  const code = await result(s.relay, 'eth_getCode', [getCreateAddress({ from: s.wallet.address, nonce }), 'latest']);
  for (const tx of added) expect(tx.result, tx.name).to.equal('SUCCESS');
  return { names: added.map((t) => t.name), code };
}

describe('jumbo transactions on the ledger relay', function () {
  this.timeout(120_000);

  describe('on a network with jumbo transactions', () => {
    let s: Setup;
    before(async () => (s = await setUp(true)));
    after(async () => {
      await s?.relay.close();
      await s?.sandbox.close();
    });

    it('deploys a 40 KiB contract as one EthereumTransaction, by default', async () => {
      const { names, code } = await deploy(s, deploymentOfSize(DEPLOYMENT_BYTES));
      expect(names).to.deep.equal(['ETHEREUMTRANSACTION']);
      expect(code).to.equal(`0x${ANSWER_RUNTIME}`);
    });

    it('answers -32201 in the official relay\'s words for call data, init code or a transaction over the limit, and submits nothing', async () => {
      const before = s.sandbox.chain.transactions().length;
      const overCallData = await signed(s, `0x${'ab'.repeat(131_073)}`, 15_000_000n);
      expect(await call(s.relay, 'eth_sendRawTransaction', [overCallData])).to.deep.include({
        error: { code: -32201, message: 'Oversized data: call data size 131073, call data size limit 131072' },
      });
      const overInitcode = await signed(s, deploymentOfSize(49_153), 15_000_000n);
      expect(await call(s.relay, 'eth_sendRawTransaction', [overInitcode])).to.deep.include({
        error: { code: -32201, message: 'Oversized data: initcode size 49153, initcode size limit 49152' },
      });
      const overTransaction = `0x02${'01'.repeat(140_000)}`;
      expect(await call(s.relay, 'eth_sendRawTransaction', [overTransaction])).to.deep.include({
        error: { code: -32201, message: 'Oversized data: transaction size 140001, transaction limit 133120' },
      });
      expect(s.sandbox.chain.transactions().length).to.equal(before);
    });
  });

  describe('with ledger.jumboTransactions false', () => {
    let s: Setup;
    before(async () => (s = await setUp(true, { jumboTransactions: false })));
    after(async () => {
      await s?.relay.close();
      await s?.sandbox.close();
    });

    it('uploads the call data to the file service first', async () => {
      const { names, code } = await deploy(s, deploymentOfSize(DEPLOYMENT_BYTES));
      expect(names[0]).to.equal('FILECREATE');
      const appends = names.slice(1, -1);
      expect(appends).to.not.be.empty;
      expect(new Set(appends)).to.deep.equal(new Set(['FILEAPPEND']));
      expect(names.at(-1)).to.equal('ETHEREUMTRANSACTION');
      expect(code).to.equal(`0x${ANSWER_RUNTIME}`);
    });
  });

  describe('on a network without jumbo transactions', () => {
    let s: Setup;
    before(async () => (s = await setUp(false)));
    after(async () => {
      await s?.relay.close();
      await s?.sandbox.close();
    });

    it('falls back to the file service when the node answers TRANSACTION_OVERSIZE', async () => {
      const { names, code } = await deploy(s, deploymentOfSize(DEPLOYMENT_BYTES));
      expect(names[0]).to.equal('FILECREATE');
      expect(names.at(-1)).to.equal('ETHEREUMTRANSACTION');
      expect(code).to.equal(`0x${ANSWER_RUNTIME}`);
    });

    it('still sends call data up to 5 KiB inline', async () => {
      const { names } = await deploy(s, deploymentOfSize(5_000));
      expect(names).to.deep.equal(['ETHEREUMTRANSACTION']);
    });
  });

  it("through the gateway, costs the operator one EthereumTransaction's fee, as the key's hbar spend shows", async () => {
    const t = await startTestGateway();
    try {
      const { key } = await t.newKey('developer', []);
      const url = `${t.gw.url}/hedera-testnet/rpc`;
      const ask = async (method: string, params: unknown[]) => (await rpc(url, { jsonrpc: '2.0', id: 1, method, params }, { 'x-api-key': key })).json;
      const funded = new Wallet(sandboxAccounts(1)[0].privateKey);
      const price = BigInt((await ask('eth_gasPrice', [])).result);
      const raw = await funded.signTransaction({ type: 2, chainId: GATEWAY_LEDGER_CHAIN_ID, nonce: 0, gasLimit: 2_000_000n, maxFeePerGas: price, maxPriorityFeePerGas: 0n, data: deploymentOfSize(DEPLOYMENT_BYTES) });
      const sent = await ask('eth_sendRawTransaction', [raw]);
      expect(sent.result, JSON.stringify(sent.error)).to.match(/^0x[0-9a-f]{64}$/);
      const usage = await (await fetch(`${t.gw.url}/usage`, { headers: { 'x-api-key': key } })).json();
      expect(usage.hbar.spent).to.deep.include({ network: 'hedera-testnet', tinybar: Number(FEES_TINYBAR.ETHEREUMTRANSACTION) });
    } finally {
      await t.close();
    }
  });
});
