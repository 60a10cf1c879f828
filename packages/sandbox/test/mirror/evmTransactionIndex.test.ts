import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { FEES_TINYBAR } from '../../src/ledger/chain.js';
import type { LedgerTransaction } from '../../src/ledger/view.js';
import { buildFixture, type Fixture } from './fixture.js';

describe('sandbox mirror node: transaction_index counts only the block’s EVM transactions', function () {
  let f: Fixture;
  let transfer: LedgerTransaction;
  let call: LedgerTransaction;
  before(async () => {
    f = await buildFixture();
    // A native hbar transfer, then an Ethereum transaction, in one block: the ledger's positions 0 and 1.
    const operator = f.chain.operator.accountId;
    const status = await f.chain.submitNative(
      { transactionId: `${operator}-1800000000-0`, payer: operator, hash: `0x${createHash('sha384').update('transfer').digest('hex')}`, maxFeeTinybar: FEES_TINYBAR.CRYPTOTRANSFER },
      { name: 'CRYPTOTRANSFER', hbar: [{ account: operator, amount: -5n }, { account: '0.0.1001', amount: 5n }], tokens: [], nfts: [] },
    );
    expect(status).to.equal('OK');
    const hash = await f.submit(f.alice, { nonce: 4, to: f.contract.address, data: f.abi.encodeFunctionData('increment', ['after a transfer']) });
    await f.chain.closeBlock();
    call = f.chain.transactionByEthHash(hash)!;
    transfer = f.chain.transactions()[f.chain.transactions().indexOf(call) - 1];
  });
  after(() => f?.close());

  it('gives the Ethereum transaction after a native one index 0 in its result, its logs and the transaction.index filter', async () => {
    expect([transfer.name, transfer.blockNumber, call.blockNumber, call.index]).to.deep.equal(['CRYPTOTRANSFER', call.blockNumber, transfer.blockNumber, 1]);
    const result = await f.call(`/api/v1/contracts/results/${call.ethHash}`);
    expect(result.body.transaction_index).to.equal(0);
    expect(result.body.logs).to.have.length(1);
    const logs = await f.call(`/api/v1/contracts/results/logs?transaction.hash=${call.ethHash}`);
    expect(logs.body.logs[0].transaction_index).to.equal(0);
    const listed = await f.call(`/api/v1/contracts/results?block.number=${call.blockNumber}&transaction.index=0`);
    expect(listed.body.results.map((r: any) => r.hash)).to.deep.equal([call.ethHash]);
  });

  it('leaves a WRONG_NONCE transaction without a slot (null), as it never reached the EVM', async () => {
    const result = await f.call(`/api/v1/contracts/results/${f.wrongNonce.ethHash}`);
    expect(result.body.transaction_index).to.equal(null);
    // The calls block: two increments, the revert, then the WRONG_NONCE one.
    const revert = await f.call(`/api/v1/contracts/results/${f.revert.ethHash}`);
    expect(revert.body.transaction_index).to.equal(2);
  });
});
