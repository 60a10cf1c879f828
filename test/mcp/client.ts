import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The official SDK client over Streamable HTTP, with the API key (if any) as X-API-KEY. */
export async function connectClient(mcpUrl: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  const headers: Record<string, string> = key ? { 'x-api-key': key } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }));
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a tool answer, for asserting on error messages. */
export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
