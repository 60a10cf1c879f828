/** The ledger GraphQL stand-in over a real LedgerChain: Hasura-shaped queries and live subscriptions in both protocols. */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { LedgerChain } from '../../src/ledger/chain.js';
import { startLedgerGraphql } from '../../src/graphql/ledger.js';
import type { StandIn } from '../../src/graphql/server.js';
import { legacyClient, modernClient, postGraphql } from '../../../../test/graphql/clients.js';

let validStart = 1_700_000_000;
/** Submits a FILECREATE paid by the operator; it is recorded when the next block closes. */
async function submitFile(chain: LedgerChain): Promise<void> {
  const status = await chain.createFile({
    transactionId: `${chain.operator.accountId}-${validStart++}-0`,
    payer: chain.operator.accountId,
    hash: `0x${randomBytes(48).toString('hex')}`,
    contents: Buffer.from('hello'),
  });
  expect(status).to.equal('OK');
}

describe('sandbox: ledger GraphQL stand-in', () => {
  let chain: LedgerChain;
  let gql: StandIn;

  before(async () => {
    chain = await LedgerChain.create({ chainId: 296, blockIntervalMs: 0 });
    gql = await startLedgerGraphql(chain);
    for (let i = 0; i < 3; i++) await submitFile(chain);
    await chain.closeBlock();
  });
  after(async () => {
    await gql.close();
    await chain.close();
  });

  it('serves on /v1/graphql and answers the latest transaction with a nanosecond timestamp string', async () => {
    expect(gql.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1\/graphql$/);
    const { status, body } = await postGraphql(gql.url, { query: '{ transaction(limit: 1, order_by: {consensus_timestamp: desc}) { consensus_timestamp } }' });
    expect(status).to.equal(200);
    expect(Object.keys(body)).to.deep.equal(['data']);
    expect(body.data.transaction).to.have.length(1);
    const ts = body.data.transaction[0].consensus_timestamp;
    expect(ts).to.match(/^\d{19}$/);
    const newest = chain.transactions().at(-1)!.consensusTimestamp;
    expect(ts).to.equal(newest.replace('.', ''));
  });

  it('filters with where, orders ascending and pages with offset', async () => {
    const all = chain.transactions().map((t) => t.consensusTimestamp.replace('.', ''));
    const { body } = await postGraphql(gql.url, {
      query: 'query($t: bigint) { transaction(where: {consensus_timestamp: {_gt: $t}}, order_by: {consensus_timestamp: asc}, offset: 1) { consensus_timestamp payer_account_id name result } }',
      variables: { t: all[0] },
    });
    expect(body.data.transaction.map((t: { consensus_timestamp: string }) => t.consensus_timestamp)).to.deep.equal(all.slice(2));
    expect(body.data.transaction[0]).to.include({ payer_account_id: chain.operator.accountId.split('.')[2], name: 'FILECREATE', result: 'SUCCESS' });
    const eq = await postGraphql(gql.url, { query: `{ transaction(where: {consensus_timestamp: {_eq: "${all[1]}"}}) { consensus_timestamp } }` });
    expect(eq.body.data.transaction).to.deep.equal([{ consensus_timestamp: all[1] }]);
  });

  it('answers errors in the GraphQL shape', async () => {
    const bad = await postGraphql(gql.url, { query: '{ transaction { no_such_field } }' });
    expect(bad.body.errors[0].message).to.contain('no_such_field');
    const notJson = await postGraphql(gql.url, 'nope');
    expect(notJson.status).to.equal(400);
  });

  it('pushes new transactions to a graphql-transport-ws subscriber', async () => {
    const conn = modernClient(gql.url);
    const events = conn.subscribe('subscription { transaction(limit: 1, order_by: {consensus_timestamp: desc}) { consensus_timestamp name } }');
    const first = await events.until(() => true);
    await submitFile(chain);
    const next = await events.until((r) => r.data.transaction[0].consensus_timestamp !== first.data.transaction[0].consensus_timestamp);
    expect(next.data.transaction[0].consensus_timestamp).to.equal(chain.transactions().at(-1)!.consensusTimestamp.replace('.', ''));
    await conn.client.dispose();
  });

  it('pushes new transactions to a legacy graphql-ws subscriber', async () => {
    const conn = legacyClient(gql.url);
    const events = conn.subscribe('subscription { transaction(limit: 1, order_by: {consensus_timestamp: desc}) { consensus_timestamp } }');
    const first = await events.until(() => true);
    await submitFile(chain);
    const next = await events.until((r) => r.data.transaction[0].consensus_timestamp !== first.data.transaction[0].consensus_timestamp);
    expect(next.data.transaction[0].consensus_timestamp).to.match(/^\d{19}$/);
    conn.close();
  });
});
