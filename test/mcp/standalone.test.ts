import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { APP_URL, mcpPost, postWithHost, startHarness, type Harness } from './harness.js';
import { callTool, connectClient, textOf } from './client.js';

const TOOLS = ['get_api_key_link', 'list_chains', 'rpc_call', 'get_balance', 'get_transaction', 'get_block', 'ledger_rest_get', 'ledger_graphql'];

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

describe('MCP endpoint (handler alone)', () => {
  let h: Harness;
  let anonymous: Client;
  let keyed: Client;

  before(async () => {
    h = await startHarness({ bodyLimitBytes: 16 * 1024 });
    anonymous = await connectClient(`${h.url}/mcp`);
    keyed = await connectClient(`${h.url}/mcp`, h.key);
  });
  after(async () => {
    await anonymous?.close();
    await keyed?.close();
    await h?.close();
  });

  it('lists every tool with a description and JSON Schemas for input and output', async () => {
    const { tools } = await anonymous.listTools();
    expect(tools.map((t) => t.name)).to.have.members(TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).to.be.a('string').with.length.above(40);
      expect(tool.inputSchema.type, tool.name).to.equal('object');
      expect(tool.outputSchema?.type, tool.name).to.equal('object');
    }
    const rpc = tools.find((t) => t.name === 'rpc_call')!;
    expect(rpc.inputSchema.required).to.include.members(['chain', 'method']);
    expect((rpc.inputSchema.properties as any).chain.enum).to.include.members(['ethereum', 'hedera', 'base']);
  });

  it('get_api_key_link works without a key and URL-encodes the project name', async () => {
    const result = await callTool(anonymous, 'get_api_key_link', { name: 'My dApp & co/ü?', network: 'testnet' });
    expect(result.isError).to.not.equal(true);
    const url = (result.structuredContent as { url: string }).url;
    expect(url).to.equal(`${APP_URL}/keys/new?name=My%20dApp%20%26%20co%2F%C3%BC%3F&network=testnet`);
    expect(new URL(url).searchParams.get('name')).to.equal('My dApp & co/ü?');
    expect(JSON.parse(textOf(result)).url, 'text content mirrors the structured answer').to.equal(url);
  });

  it('get_api_key_link refuses a bad network with a tool error naming the allowed values', async () => {
    const result = await callTool(anonymous, 'get_api_key_link', { name: 'x', network: 'devnet' });
    expect(result.isError).to.equal(true);
    expect(textOf(result)).to.include('network must be "mainnet" or "testnet"');
    const empty = await callTool(anonymous, 'get_api_key_link', { name: '', network: 'mainnet' });
    expect(empty.isError).to.equal(true);
    expect(textOf(empty)).to.include('project name');
  });

  it('tools that need a key answer without one with a tool error that says how to get one', async () => {
    for (const [name, args] of [
      ['list_chains', {}],
      ['rpc_call', { chain: 'ethereum', method: 'eth_blockNumber' }],
      ['ledger_rest_get', { path: '/api/v1/accounts/0.0.2' }],
    ] as const) {
      const result = await callTool(anonymous, name, args);
      expect(result.isError, name).to.equal(true);
      expect(textOf(result), name).to.include('API key missing').and.include(`${APP_URL}/keys/new`).and.include('get_api_key_link');
      // Read as sentences: no ".:" seams, a capital after each full stop, a full stop at the end.
      expect(textOf(result), name).to.not.include('.:');
      expect(textOf(result), name).to.include('/v1/<key>/<api path>. This tool needs one.').and.match(/\.$/);
    }
  });

  it('words invalid arguments as sentences naming the argument, not as the schema library\'s report', async () => {
    const result = await callTool(anonymous, 'get_api_key_link', { name: 'x', network: 'devnet' });
    expect(result.isError).to.equal(true);
    expect(textOf(result)).to.equal('The network argument is invalid: network must be "mainnet" or "testnet".');
    const missing = await callTool(keyed, 'rpc_call', { chain: 'ethereum' });
    expect(missing.isError).to.equal(true);
    expect(textOf(missing)).to.match(/^The method argument is missing\.$/);
  });

  it('words tool errors as sentences', async () => {
    const unknown = await callTool(keyed, 'rpc_call', { chain: 'ethereum', network: 'nope', method: 'eth_blockNumber' });
    expect(textOf(unknown)).to.equal('Not found: ethereum has the networks mainnet, sepolia, hoodi.');
  });

  it('list_chains with a key lists chains, networks, chain ids and APIs', async () => {
    const result = await callTool(keyed, 'list_chains');
    expect(result.isError).to.not.equal(true);
    const { chains } = result.structuredContent as { chains: Array<{ chain: string; kind: string; networks: Array<{ network: string; id: string; chainId: number; apis: string[] }> }> };
    const hedera = chains.find((c) => c.chain === 'hedera')!;
    expect(hedera.kind).to.equal('ledger');
    expect(hedera.networks).to.deep.include({ network: 'testnet', id: 'hedera-testnet', chainId: 296, apis: ['rpc', 'rest', 'graphql'] });
    const ethereum = chains.find((c) => c.chain === 'ethereum')!;
    expect(ethereum.networks.map((n) => n.id)).to.include.members(['ethereum', 'ethereum-sepolia']);
  });

  it('a tool naming an unknown network says which networks the chain has', async () => {
    const result = await callTool(keyed, 'rpc_call', { chain: 'ethereum', network: 'goerli', method: 'eth_chainId' });
    expect(result.isError).to.equal(true);
    expect(textOf(result)).to.include('ethereum has the networks mainnet, sepolia, hoodi');
    const bad = await callTool(keyed, 'rpc_call', { chain: 'dogecoin', method: 'eth_chainId' });
    expect(bad.isError).to.equal(true);
    expect(textOf(bad)).to.include('chain must be one of').and.include('ethereum');
  });

  it('answers 401 in JSON-RPC shape for an unknown key, without echoing it', async () => {
    const bogus = 'pk_test_notakey_0123456789abcdef';
    for (const headers of [{ 'x-api-key': bogus }, { authorization: `Bearer ${bogus}` }] as Record<string, string>[]) {
      const res = await mcpPost(`${h.url}/mcp`, LIST, headers);
      expect(res.status).to.equal(401);
      expect(res.json).to.deep.include({ jsonrpc: '2.0', id: null });
      expect(res.json.error.code).to.equal(-32001);
      expect(res.text).to.not.include(bogus);
    }
    const inPath = await mcpPost(`${h.url}/v1/${bogus}/mcp`, LIST);
    expect(inPath.status).to.equal(401);
    expect(inPath.text).to.not.include(bogus);
  });

  it('takes the key from the path form /v1/<key>/mcp', async () => {
    const client = await connectClient(`${h.url}/v1/${h.key}/mcp`);
    try {
      expect((await callTool(client, 'list_chains')).isError).to.not.equal(true);
    } finally {
      await client.close();
    }
  });

  it('refuses a foreign Origin or Host (DNS-rebinding protection) and accepts the configured ones', async () => {
    const evil = await mcpPost(`${h.url}/mcp`, LIST, { origin: 'http://evil.example' });
    expect(evil.status).to.equal(403);
    expect(evil.json.error.message).to.include('Origin');
    expect((await mcpPost(`${h.url}/mcp`, LIST, { origin: 'null' })).status).to.equal(403);
    expect((await mcpPost(`${h.url}/mcp`, LIST, { origin: APP_URL })).status).to.equal(200);
    expect((await mcpPost(`${h.url}/mcp`, LIST, { origin: 'http://localhost:6274' })).status).to.equal(200);

    // A rebound name is not one of ours: routing refuses it before the MCP handler sees it.
    expect((await postWithHost(`${h.url}/mcp`, 'attacker.example', JSON.stringify(LIST))).status).to.equal(404);
    expect((await postWithHost(`${h.url}/mcp`, 'mcp.localhost:8080', JSON.stringify(LIST))).status).to.equal(200);
  });

  it('refuses a routable Host that is not among the MCP hosts', async () => {
    const narrow = await startHarness({ allowedHosts: ['mcp.localhost'] });
    try {
      const refused = await postWithHost(`${narrow.url}/mcp`, 'localhost:8080', JSON.stringify(LIST));
      expect(refused.status).to.equal(403);
      expect(JSON.parse(refused.body).error.message).to.include('Host "localhost"');
      expect((await postWithHost(`${narrow.url}/mcp`, 'MCP.localhost', JSON.stringify(LIST))).status).to.equal(200);
    } finally {
      await narrow.close();
    }
  });

  it('refuses a body over the limit with 413, charged one request, and a GET with 405', async () => {
    // A key of its own: the refusal is charged, and the shared key's frozen budget may be spent by now.
    const own = await startHarness({ bodyLimitBytes: 16 * 1024 });
    try {
      const big = JSON.stringify({ ...LIST, params: { pad: 'x'.repeat(20 * 1024) } });
      const res = await mcpPost(`${own.url}/mcp`, big, { 'x-api-key': own.key });
      expect(res.status).to.equal(413);
      expect(res.json.error.message).to.include('at most 16384 bytes');
      expect(own.charged).to.equal(1);
    } finally {
      await own.close();
    }
    const get = await fetch(`${h.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).to.equal(405);
    expect(get.headers.get('allow')).to.equal('POST');
    await get.body?.cancel();
  });
});

describe('MCP endpoint budget', () => {
  it('charges each request with a key and answers 429 at the HTTP level when the budget is spent', async () => {
    const h = await startHarness();
    try {
      // The free plan's budget is 10 per second; the harness's clock stands still.
      for (let i = 0; i < 10; i++) expect((await mcpPost(`${h.url}/mcp`, LIST, { 'x-api-key': h.key })).status).to.equal(200);
      const refused = await mcpPost(`${h.url}/mcp`, LIST, { 'x-api-key': h.key });
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(refused.json.error.code).to.equal(-32005);
      // Without a key nothing is charged, and only get_api_key_link does anything.
      expect((await mcpPost(`${h.url}/mcp`, LIST)).status).to.equal(200);
      expect(h.charged).to.equal(10);
    } finally {
      await h.close();
    }
  });
});
