/** The EVM beta GraphQL stand-in over a real devnet: blocks, transactions and logs of what ethers sent. */
import { expect } from 'chai';
import { JsonRpcProvider, Wallet, id as topicOf, parseEther } from 'ethers';
import { sandboxAccounts } from '../../src/accounts.js';
import { startDevnet, type Devnet } from '../../src/devnet.js';
import { startEvmGraphql } from '../../src/graphql/evm.js';
import type { StandIn } from '../../src/graphql/server.js';
import { postGraphql } from '../../../../test/graphql/clients.js';

const TOPIC = topicOf('Hello()');
/** Init code that emits LOG1(TOPIC) with no data while deploying, and deploys nothing. */
const EMIT_LOG_INIT = `0x7f${TOPIC.slice(2)}60006000a100`;

describe('sandbox: EVM beta GraphQL stand-in', () => {
  let devnet: Devnet;
  let gql: StandIn;
  let transferHash: string;
  let logHash: string;

  before(async () => {
    devnet = await startDevnet({ chainId: 1 });
    gql = await startEvmGraphql(devnet.url);
    const provider = new JsonRpcProvider(devnet.url, 1, { staticNetwork: true, cacheTimeout: -1 });
    const [a, b] = sandboxAccounts();
    const wallet = new Wallet(a.privateKey, provider);
    transferHash = (await (await wallet.sendTransaction({ to: b.address, value: parseEther('1') })).wait())!.hash;
    logHash = (await (await wallet.sendTransaction({ data: EMIT_LOG_INIT })).wait())!.hash;
    provider.destroy();
  });
  after(async () => {
    await gql.close();
    await devnet.close();
  });

  it('serves on /beta/graphql with the chain id and blocks', async () => {
    expect(gql.url).to.match(/\/beta\/graphql$/);
    const { body } = await postGraphql(gql.url, { query: '{ chainID block { number hash parent { number } transactionCount } blocks(from: 0) { number } }' });
    expect(body.data.chainID).to.equal('0x1');
    expect(body.data.block.number).to.equal('0x2');
    expect(body.data.block.parent.number).to.equal('0x1');
    expect(body.data.block.transactionCount).to.equal('0x1');
    expect(body.data.blocks.map((b: { number: string }) => b.number)).to.deep.equal(['0x0', '0x1', '0x2']);
  });

  it('looks up transactions with their sender, receiver, status and block', async () => {
    const [a, b] = sandboxAccounts();
    const { body } = await postGraphql(gql.url, {
      query: 'query($h: Bytes32!) { transaction(hash: $h) { hash value status from { address } to { address } block { number } } }',
      variables: { h: transferHash },
    });
    expect(body.data.transaction).to.deep.equal({
      hash: transferHash,
      value: '0xde0b6b3a7640000',
      status: '0x1',
      from: { address: a.address.toLowerCase() },
      to: { address: b.address.toLowerCase() },
      block: { number: '0x1' },
    });
  });

  it('finds logs by topic and links them to their transaction', async () => {
    const { body } = await postGraphql(gql.url, {
      query: `{ logs(filter: {fromBlock: 0, topics: [["${TOPIC}"]]}) { topics transaction { hash } } }`,
    });
    expect(body.data.logs).to.deep.equal([{ topics: [TOPIC], transaction: { hash: logHash } }]);
  });

  it('answers a missing transaction with null and bad input with GraphQL errors', async () => {
    const missing = await postGraphql(gql.url, { query: `{ transaction(hash: "0x${'00'.repeat(32)}") { hash } }` });
    expect(missing.body).to.deep.equal({ data: { transaction: null } });
    const bad = await postGraphql(gql.url, { query: '{ blocks(from: "x") { number } }' });
    expect(bad.body.errors[0].message).to.contain('Long');
  });
});
