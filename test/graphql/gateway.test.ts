/**
 * GraphQL through the real gateway and its sandbox: queries, path auth, errors and the depth guard; the beta GraphQL
 * of the EVM chain; subscriptions in both protocols receiving transactions sent through the gateway's own /rpc; and
 * revocation closing an open socket.
 */
import { expect } from 'chai';
import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { legacyClient, modernClient, postGraphql, type Collected } from './clients.js';

const LATEST = '{ transaction(limit: 1, order_by: {consensus_timestamp: desc}) { consensus_timestamp } }';
const LATEST_SUB = `subscription { transaction(limit: 1, order_by: {consensus_timestamp: desc}) { consensus_timestamp name result } }`;

describe('GraphQL through the gateway (sandbox)', () => {
  let gw: TestGateway;
  let url: string;
  let wallet: Wallet;
  let provider: JsonRpcProvider;

  before(async () => {
    // A short key cache bounds how long a revoked key's sockets stay open.
    gw = await startTestGateway({ keys: { cacheTtlMs: 200 } });
    url = `${gw.gw.url}/hedera-testnet/v1/graphql`;
    provider = new JsonRpcProvider(`${gw.gw.url}/hedera-testnet/v1/${gw.key}/rpc`, 296, { staticNetwork: true, cacheTimeout: -1 });
    wallet = new Wallet(sandboxAccounts()[0].privateKey, provider);
  });
  after(async () => {
    provider?.destroy();
    await gw?.close();
  });

  /** Sends value through the gateway's ledger relay and resolves once it is mined. */
  async function sendTransaction(): Promise<void> {
    const tx = await wallet.sendTransaction({ to: sandboxAccounts()[1].address, value: parseEther('0.01') });
    await tx.wait();
  }

  /** Waits until the subscription reports an ETHEREUMTRANSACTION newer than `after`. */
  function newerEthereumTransaction(events: Collected, after: string) {
    return events.until((r) => {
      const [tx] = r.data?.transaction ?? [];
      return tx && BigInt(tx.consensus_timestamp) > BigInt(after) && tx.name === 'ETHEREUMTRANSACTION';
    });
  }

  it('answers the latest-transaction query as {"data":{"transaction":[{"consensus_timestamp":"<digits>"}]}}', async () => {
    await sendTransaction();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': gw.key }, body: JSON.stringify({ query: LATEST }) });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.match(/^\{"data":\{"transaction":\[\{"consensus_timestamp":"\d+"\}\]\}\}$/);
  });

  it('accepts path auth at /v1/<key>/graphql', async () => {
    const { status, body } = await postGraphql(`${gw.gw.url}/hedera-testnet/v1/${gw.key}/graphql`, { query: LATEST });
    expect(status).to.equal(200);
    expect(body.data.transaction[0].consensus_timestamp).to.match(/^\d+$/);
  });

  it('answers errors in the GraphQL shape: missing key, malformed body, unknown field', async () => {
    const noKey = await postGraphql(url, { query: LATEST });
    expect(noKey.status).to.equal(401);
    expect(noKey.body).to.have.nested.property('errors[0].extensions.code', 'UNAUTHENTICATED');
    const malformed = await postGraphql(url, '{"query":', { 'x-api-key': gw.key });
    expect(malformed.status).to.equal(400);
    expect(malformed.body).to.have.nested.property('errors[0].extensions.code', 'BAD_REQUEST');
    const unknown = await postGraphql(url, { query: '{ transaction { nope } }' }, { 'x-api-key': gw.key });
    expect(unknown.body.errors[0].message).to.contain('nope');
  });

  it("enforces the plan's depth guard (free: 6)", async () => {
    const { key } = await gw.newKey('free', []);
    const deep = await postGraphql(url, { query: '{ a { b { c { d { e { f { g } } } } } } }' }, { 'x-api-key': key });
    expect(deep.status).to.equal(400);
    expect(deep.body).to.have.nested.property('errors[0].extensions.code', 'QUERY_TOO_DEEP');
    const ok = await postGraphql(url, { query: LATEST }, { 'x-api-key': key });
    expect(ok.status).to.equal(200);
  });

  it('serves the beta GraphQL of the main EVM chain from its devnet', async () => {
    const { status, body } = await postGraphql(`${gw.gw.url}/ethereum/beta/graphql`, { query: '{ chainID block(number: 0) { number } }' }, { 'x-api-key': gw.key });
    expect(status).to.equal(200);
    expect(body).to.deep.equal({ data: { chainID: '0x1', block: { number: '0x0' } } });
  });

  it('delivers transactions sent through the gateway to a graphql-ws (graphql-transport-ws) subscriber', async () => {
    const conn = modernClient(url, { 'x-api-key': gw.key });
    const events = conn.subscribe(LATEST_SUB);
    const first = await events.until(() => true);
    await sendTransaction();
    const next = await newerEthereumTransaction(events, first.data.transaction[0].consensus_timestamp);
    expect(next.data.transaction[0].result).to.equal('SUCCESS');
    await conn.client.dispose();
  });

  it('delivers them over the legacy graphql-ws protocol too', async () => {
    const conn = legacyClient(`${gw.gw.url}/hedera-testnet/v1/${gw.key}/graphql`);
    const events = conn.subscribe(LATEST_SUB);
    const first = await events.until(() => true);
    await sendTransaction();
    await newerEthereumTransaction(events, first.data.transaction[0].consensus_timestamp);
    conn.close();
  });

  it('closes the socket with 4403 when the key is revoked', async () => {
    const { key, id } = await gw.newKey('developer', []);
    const conn = modernClient(url, { 'x-api-key': key });
    await conn.subscribe(LATEST_SUB).until(() => true);
    await gw.gw.keyStore.revoke(id);
    expect((await conn.closed).code).to.equal(4403);
  });
});
