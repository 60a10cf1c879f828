import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ethers } from 'ethers';
import { defaultPlans } from '../../src/config/catalogue.js';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { callTool, connectClient, textOf } from './client.js';
import { mcpPost, postWithHost } from './harness.js';

const [alice, bob] = sandboxAccounts(2);
const SEPOLIA = { chain: 'ethereum', network: 'sepolia' };
const HEDERA_TESTNET = { chain: 'hedera', network: 'testnet' };

function ok(result: CallToolResult): Record<string, any> {
  expect(result.isError, textOf(result)).to.not.equal(true);
  return result.structuredContent as Record<string, any>;
}

describe('MCP endpoint through the gateway (sandbox upstreams)', () => {
  let t: TestGateway;
  let client: Client;

  before(async () => {
    t = await startTestGateway({
      plans: { ...defaultPlans(), tiny: { requestsPerSecond: 1000, monthlyQuota: 3, apis: ['rpc', 'mcp'] } },
    });
    client = await connectClient(`${t.gw.url}/mcp`, t.key);
  });
  after(async () => {
    await client?.close();
    await t?.close();
  });

  it('rpc_call answers any JSON-RPC call on an EVM network and on the ledger relay', async () => {
    expect(ok(await callTool(client, 'rpc_call', { ...SEPOLIA, method: 'eth_chainId' }))).to.deep.equal({ ...SEPOLIA, method: 'eth_chainId', result: '0xaa36a7' });
    expect(ok(await callTool(client, 'rpc_call', { ...HEDERA_TESTNET, method: 'eth_chainId', params: [] })).result).to.equal('0x128');
    const failed = await callTool(client, 'rpc_call', { ...SEPOLIA, method: 'eth_notAMethod' });
    expect(failed.isError).to.equal(true);
    expect(textOf(failed)).to.match(/^eth_notAMethod on ethereum-sepolia failed with JSON-RPC error -\d+: \S/);
  });

  it('get_balance reads a prefunded account, by 0x address and by ledger account id', async () => {
    const evm = ok(await callTool(client, 'get_balance', { ...SEPOLIA, address: alice.address }));
    expect(BigInt(evm.wei) > 0n, 'balance above zero').to.equal(true);
    expect(evm.formatted).to.equal(ethers.formatEther(BigInt(evm.wei)));
    const ledger = ok(await callTool(client, 'get_balance', { ...HEDERA_TESTNET, address: alice.address }));
    expect(BigInt(ledger.wei) > 0n, 'balance above zero').to.equal(true);
    const byId = await callTool(client, 'get_balance', { ...SEPOLIA, address: '0.0.2' });
    expect(textOf(byId)).to.include('EVM chain');
  });

  it('a transaction sent with rpc_call is found by get_transaction and its block by get_block', async () => {
    const nonce = ok(await callTool(client, 'rpc_call', { ...SEPOLIA, method: 'eth_getTransactionCount', params: [alice.address, 'pending'] })).result;
    const gasPrice = ok(await callTool(client, 'rpc_call', { ...SEPOLIA, method: 'eth_gasPrice' })).result;
    const raw = await new ethers.Wallet(alice.privateKey).signTransaction({
      type: 0,
      to: bob.address,
      value: ethers.parseEther('0.1'),
      nonce: Number(nonce),
      gasLimit: 21_000,
      gasPrice: BigInt(gasPrice) * 2n,
      chainId: 11155111,
    });
    const hash = ok(await callTool(client, 'rpc_call', { ...SEPOLIA, method: 'eth_sendRawTransaction', params: [raw] })).result;
    expect(hash).to.equal(ethers.keccak256(raw));

    const found = ok(await callTool(client, 'get_transaction', { ...SEPOLIA, hash }));
    expect(found.transaction.hash).to.equal(hash);
    expect(found.receipt.status).to.equal('0x1');
    const block = ok(await callTool(client, 'get_block', { ...SEPOLIA, block: String(BigInt(found.receipt.blockNumber)), fullTransactions: true }));
    expect(block.block.transactions.map((tx: { hash: string }) => tx.hash)).to.include(hash);
    const byHash = ok(await callTool(client, 'get_block', { ...SEPOLIA, block: block.block.hash }));
    expect(byHash.block.transactions).to.include(hash);

    const unknown = ok(await callTool(client, 'get_transaction', { ...SEPOLIA, hash: `0x${'ab'.repeat(32)}` }));
    expect(unknown).to.deep.include({ transaction: null, receipt: null });
  });

  it('ledger_rest_get reads mirror-node REST and cannot leave /api/v1', async () => {
    const account = ok(await callTool(client, 'ledger_rest_get', { ...HEDERA_TESTNET, path: '/api/v1/accounts/0.0.2' }));
    expect(account.body.account).to.equal('0.0.2');
    // The treasury holds more tinybar than a JSON number keeps exactly: it comes back as an exact string.
    expect(account.body.balance.balance).to.be.a('string').and.match(/^\d{17,}$/);
    const short = ok(await callTool(client, 'ledger_rest_get', { network: 'testnet', path: '/blocks?limit=1' }));
    expect(short).to.deep.include({ chain: 'hedera', network: 'testnet', path: '/api/v1/blocks?limit=1' });
    expect(short.body.blocks).to.have.length(1);
    for (const path of ['/api/v1/../../ethereum/rpc', '/api/v1/%2e%2e/%2e%2e/keys/new']) {
      const escaped = await callTool(client, 'ledger_rest_get', { ...HEDERA_TESTNET, path });
      expect(escaped.isError, path).to.equal(true);
      expect(textOf(escaped)).to.include('The path must stay under /api/v1/');
    }
    const missing = await callTool(client, 'ledger_rest_get', { ...HEDERA_TESTNET, path: '/api/v1/accounts/0.0.999999999' });
    expect(missing.isError).to.equal(true);
    expect(textOf(missing)).to.include('HTTP 404');
    const evm = await callTool(client, 'ledger_rest_get', { chain: 'ethereum', path: '/api/v1/accounts/0.0.2' } as never);
    expect(evm.isError).to.equal(true);
  });

  it('ledger_graphql runs a query on ledger data', async () => {
    const result = ok(
      await callTool(client, 'ledger_graphql', { ...HEDERA_TESTNET, query: 'query ($n: Int) { record_file(limit: $n, order_by: {index: asc}) { index } }', variables: { n: 1 } }),
    );
    expect(result.data.record_file).to.deep.equal([{ index: '0' }]);
    const broken = await callTool(client, 'ledger_graphql', { ...HEDERA_TESTNET, query: '{ nope' });
    expect(broken.isError).to.equal(true);
  });

  it('ledger_graphql goes through the GraphQL guards: a fragment bomb is refused by its cost', async () => {
    const fragments = Array.from({ length: 30 }, (_, i) => `fragment F${i} on record_file { ...F${i + 1} ...F${i + 1} }`).join(' ');
    const query = `{ record_file(limit: 1) { ...F0 } } ${fragments} fragment F30 on record_file { index }`;
    const bomb = await callTool(client, 'ledger_graphql', { ...HEDERA_TESTNET, query });
    expect(bomb.isError).to.equal(true);
    expect(textOf(bomb)).to.include('HTTP 400').and.include('Query asks for more than your plan allows');
  });

  it('passes the API refusals on as tool errors: a plan without the ledger relay gets 403', async () => {
    const { key } = await t.newKey('free', []);
    const free = await connectClient(`${t.gw.url}/mcp`, key);
    try {
      const refused = await callTool(free, 'rpc_call', { ...HEDERA_TESTNET, method: 'eth_chainId' });
      expect(refused.isError).to.equal(true);
      expect(textOf(refused)).to.include('HTTP 403').and.include('ledger JSON-RPC relay').and.not.include(key);
      expect(ok(await callTool(free, 'rpc_call', { ...SEPOLIA, method: 'eth_chainId' })).result).to.equal('0xaa36a7');
    } finally {
      await free.close();
    }
  });

  it('charges the MCP request and the API calls its tools make to the key, then refuses with 429', async () => {
    const { key } = await t.newKey('tiny', []);
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'rpc_call', arguments: { ...SEPOLIA, method: 'eth_chainId' } } };
    // Quota 3: the first call costs 2 (the MCP request and its /rpc call).
    const first = await mcpPost(`${t.gw.url}/mcp`, call, { 'x-api-key': key });
    expect(first.json.result.structuredContent.result).to.equal('0xaa36a7');
    // The second MCP request is admitted (3 of 3) but its /rpc call is not: a tool error.
    const second = await mcpPost(`${t.gw.url}/mcp`, call, { 'x-api-key': key });
    expect(second.status).to.equal(200);
    expect(second.json.result.isError).to.equal(true);
    expect(second.json.result.content[0].text).to.include('HTTP 429');
    // The third is refused at the HTTP level, like any API.
    const third = await mcpPost(`${t.gw.url}/mcp`, call, { 'x-api-key': key });
    expect(third.status).to.equal(429);
    expect(third.headers.get('retry-after')).to.be.a('string');
    expect(third.json.error.code).to.equal(-32005);
  });

  it('refuses a foreign Origin and a foreign Host', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const evil = await mcpPost(`${t.gw.url}/mcp`, list, { origin: 'http://rebind.attacker.example', 'x-api-key': t.key });
    expect(evil.status).to.equal(403);
    expect((await mcpPost(`${t.gw.url}/mcp`, list, { origin: t.gw.urls.base })).status).to.equal(200);
    const foreign = await postWithHost(`${t.gw.url}/mcp`, 'rebind.attacker.example', JSON.stringify(list));
    expect(foreign.status).to.equal(404);
  });
});
