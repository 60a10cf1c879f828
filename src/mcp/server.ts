import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerChainTools } from './tools/chains.js';
import type { ToolDeps } from './tools/deps.js';
import { registerKeyTools } from './tools/keys.js';
import { registerLedgerTools } from './tools/ledger.js';
import { registerRpcTools } from './tools/rpc.js';

const INSTRUCTIONS =
  'Blockchain data and JSON-RPC through a multi-chain API gateway: EVM chains (Ethereum, Base, ...) and the Hedera ledger. ' +
  'One API key works on every chain and network and is charged per request. Without a key only get_api_key_link works: ' +
  'call it with the project name and mainnet or testnet and give the user the link. Call list_chains to learn valid chain and network names.';

/** One MCP server for one request: the tools close over the caller, so each request builds its own. */
export function buildMcpServer(deps: ToolDeps): McpServer {
  const server = new McpServer({ name: 'multichain-gateway', version: '0.1.0' }, { instructions: INSTRUCTIONS });
  registerKeyTools(server, deps);
  registerChainTools(server, deps);
  registerRpcTools(server, deps);
  registerLedgerTools(server, deps);
  return server;
}
