import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Router } from '../edge/route.js';
import { isGatewayError } from '../errors.js';
import { ToolFailure } from './selfClient.js';
import { chainTools } from './tools/chains.js';
import type { ToolDefinition } from './tools/define.js';
import type { ToolDeps } from './tools/deps.js';
import { keyTools } from './tools/keys.js';
import { ledgerTools } from './tools/ledger.js';
import { rpcTools } from './tools/rpc.js';

const ANY_ARGUMENTS = z.looseObject({});

const INSTRUCTIONS =
  'Blockchain data and JSON-RPC through a multi-chain API gateway: EVM chains (Ethereum, Base, ...) and the Hedera ledger. ' +
  'One API key works on every chain and network and is charged per request. Without a key only get_api_key_link works: ' +
  'call it with the project name and mainnet or testnet and give the user the link. Call list_chains to learn valid chain and network names.';

export interface McpServers {
  forRequest(deps: ToolDeps): McpServer;
  /** A stateless Streamable HTTP transport answering in JSON. */
  transport(): StreamableHTTPServerTransport;
}

/**
 * Builds the tools once; `forRequest` makes the per-request server (the tools close over the caller). Two costs are
 * paid once here instead of per request: the JSON-schema validator a server would compile, and the JSON Schemas of
 * tools/list, which the SDK would convert from zod on every listing (tools/list went from about 7 ms of CPU to 1.3 ms).
 * The SDK, with ajv and the zod-to-JSON-Schema conversion (about 20 MB resident), loads here: on the first MCP request.
 */
export async function createMcpServerFactory(router: Router): Promise<McpServers> {
  const [{ McpServer }, { StreamableHTTPServerTransport }, { toJsonSchemaCompat }, { ListToolsRequestSchema }, { AjvJsonSchemaValidator }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/zod-json-schema-compat.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv-provider.js'),
  ]);
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
      // Each tool checks its own arguments (to word what is wrong as sentences), so the SDK is given a schema that
      // takes any object; agents still see the real input schemas, from the listing above.
      for (const tool of tools) {
        server.registerTool(tool.name, { ...tool.config, inputSchema: ANY_ARGUMENTS }, (args: unknown) => tool.run(deps, args).catch(toolError));
      }
      server.server.setRequestHandler(ListToolsRequestSchema, () => listing);
      return server;
    },
    transport: () => new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true }),
  };
}

/** A tool's failure as the agent reads it: one or more sentences; anything unexpected says only that it happened. */
function toolError(err: unknown): CallToolResult {
  const text = err instanceof ToolFailure || isGatewayError(err) ? asSentence(err.message) : 'The tool failed unexpectedly; try again.';
  return { isError: true, content: [{ type: 'text', text }] };
}

/** Capitalised (unless it starts with an identifier such as eth_call) and ended with a full stop. */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  const first = /^[a-z]+\b/.exec(trimmed)?.[0];
  const capitalised = first && !/^[a-z]+[_0-9]/.test(trimmed) ? trimmed.charAt(0).toUpperCase() + trimmed.slice(1) : trimmed;
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}
