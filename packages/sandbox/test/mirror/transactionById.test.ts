import { expect } from 'chai';
import { buildFixture, type Fixture } from './fixture.js';

describe('sandbox mirror node: /transactions/{transactionIdOrHash}', function () {
  let f: Fixture;
  before(async () => {
    f = await buildFixture();
  });
  after(() => f?.close());

  it('answers the transaction by its id, in the listing’s shape, checked against the OpenAPI document', async () => {
    const tx = f.increments[0];
    const { status, body } = await f.call(`/api/v1/transactions/${tx.transactionId}`);
    expect(status).to.equal(200);
    expect(body.transactions).to.have.length(1);
    expect(body.transactions[0]).to.include({
      transaction_id: tx.transactionId,
      consensus_timestamp: tx.consensusTimestamp,
      name: 'ETHEREUMTRANSACTION',
      result: 'SUCCESS',
      charged_tx_fee: tx.chargedTxFeeTinybar,
      nonce: 0,
      transaction_hash: Buffer.from(tx.hash.slice(2), 'hex').toString('base64'),
    });
    const listed = await f.call(`/api/v1/transactions?timestamp=${tx.consensusTimestamp}`);
    expect(body.transactions).to.deep.equal(listed.body.transactions);
  });

  it('finds it by its 48-byte hash too (hex with or without 0x, or base64url), and with unpadded nanos in the id', async () => {
    const tx = f.revert;
    const expected = (await f.call(`/api/v1/transactions/${tx.transactionId}`)).body;
    const hex = tx.hash.slice(2);
    for (const name of [tx.hash, hex, Buffer.from(hex, 'hex').toString('base64url'), tx.transactionId.replace(/-0+(\d)$/, '-$1')]) {
      expect((await f.call(`/api/v1/transactions/${name}`)).body, name).to.deep.equal(expected);
    }
  });

  it('filters on nonce and scheduled, answers 404 for what it does not hold and 400 for a malformed id', async () => {
    const id = f.transfer.transactionId;
    expect((await f.call(`/api/v1/transactions/${id}?nonce=0&scheduled=false`)).body.transactions).to.have.length(1);
    expect((await f.call(`/api/v1/transactions/${id}?nonce=1`)).status).to.equal(404);
    expect((await f.call(`/api/v1/transactions/${id}?scheduled=true`)).status).to.equal(404);
    expect((await f.call('/api/v1/transactions/0.0.1011-1-2')).body).to.deep.equal({ _status: { messages: [{ message: 'Not found' }] } });
    const bad = await f.call('/api/v1/transactions/0.0.1011@1.2');
    expect(bad.status).to.equal(400);
    expect(bad.body._status.messages[0].message).to.equal('Invalid Transaction id. Please use "shard.realm.num-sss-nnn" format where sss are seconds and nnn are nanoseconds');
    expect((await f.call(`/api/v1/transactions/${id}?nonce=x`)).status).to.equal(400);
  });
});
