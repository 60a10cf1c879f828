import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { Router } from '../edge/route.js';
import { chainTools } from './tools/chains.js';
import type { ToolDefinition } from './tools/define.js';
import type { ToolDeps } from './tools/deps.js';
import { keyTools } from './tools/keys.js';
import { ledgerTools } from './tools/ledger.js';
import { rpcTools } from './tools/rpc.js';

const INSTRUCTIONS =
  'Blockchain data and JSON-RPC through a multi-chain API gateway: EVM chains (Ethereum, Base, ...) and the Hedera ledger. ' +
  'One API key works on every chain and network and is charged per request. Without a key only get_api_key_link works: ' +
  'call it with the project name and mainnet or testnet and give the user the link. Call list_chains to learn valid chain and network names.';

/**
 * Builds the tools once; `forRequest` makes the per-request server (the tools close over the caller). Two costs are
 * paid once here instead of per request: the JSON-schema validator a server would compile, and the JSON Schemas of
 * tools/list, which the SDK would convert from zod on every listing (tools/list went from about 7 ms of CPU to 1.3 ms).
 */
export function createMcpServerFactory(router: Router): { forRequest(deps: ToolDeps): McpServer } {
  const tools: ToolDefinition[] = [...keyTools(), ...chainTools(router), ...rpcTools(router), ...ledgerTools(router)];
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  // The same conversion, with the same options, as McpServer's own tools/list.
  const listing: { tools: Tool[] } = {
    tools: tools.map(({ name, config }) => ({
      name,
      title: config.title,
      description: config.description,
      inputSchema: toJsonSchemaCompat(config.inputSchema, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema'],
      outputSchema: toJsonSchemaCompat(config.outputSchema, { strictUnions: true, pipeStrategy: 'output' }) as Tool['outputSchema'],
      annotations: config.annotations,
      execution: { taskSupport: 'forbidden' },
    })),
  };
  return {
    forRequest(deps) {
      const server = new McpServer({ name: 'multichain-gateway', version: '0.1.0' }, { instructions: INSTRUCTIONS, jsonSchemaValidator });
      for (const tool of tools) server.registerTool(tool.name, tool.config, (args: unknown) => tool.run(deps, args));
      server.server.setRequestHandler(ListToolsRequestSchema, () => listing);
      return server;
    },
  };
}
