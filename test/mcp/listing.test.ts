import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { loadConfig } from '../../src/config/load.js';
import { Router } from '../../src/edge/route.js';
import { createMcpServerFactory } from '../../src/mcp/server.js';
import { SelfClient } from '../../src/mcp/selfClient.js';
import { chainTools } from '../../src/mcp/tools/chains.js';
import { keyTools } from '../../src/mcp/tools/keys.js';
import { ledgerTools } from '../../src/mcp/tools/ledger.js';
import { rpcTools } from '../../src/mcp/tools/rpc.js';

async function listTools(server: McpServer) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 't', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  const { tools } = await client.listTools();
  await client.close();
  return tools;
}

describe('MCP tools/list', () => {
  it('serves, from its cache, exactly what the SDK would list for the same tools', async () => {
    const router = new Router(loadConfig({ env: {}, overrides: { sandbox: { enabled: true } } }));
    const client = new SelfClient(() => 'http://127.0.0.1:1');
    const cached = await listTools((await createMcpServerFactory(router)).forRequest({ router, appUrl: 'https://app.example.test', client, requestId: 'r' }));
    const plain = new McpServer({ name: 'plain', version: '1' });
    for (const tool of [...keyTools(), ...chainTools(router), ...rpcTools(router), ...ledgerTools(router)]) {
      plain.registerTool(tool.name, tool.config, async () => ({ content: [] }));
    }
    // Compared as a client sees them on the wire, where an undefined field is absent.
    expect(JSON.parse(JSON.stringify(cached))).to.deep.equal(JSON.parse(JSON.stringify(await listTools(plain))));
    await client.close();
  });
});
