import { z } from 'zod';
import { keyLink } from '../keyLink.js';
import { structured } from './deps.js';
import { defineTool, type ToolDefinition } from './define.js';

const NETWORKS = ['mainnet', 'testnet'] as const;

/** `get_api_key_link`: the one tool that needs no key, since an agent uses it to get one. */
export function keyTools(): ToolDefinition[] {
  return [
    defineTool(
      'get_api_key_link',
      {
        title: 'Get an API key link',
        description:
          'Returns the link to the page where the user creates an API key for this gateway. Needs no API key. ' +
          'Give the link to the user: they open it, create the key, and add it to this MCP server connection ' +
          '(X-API-KEY header, Authorization: Bearer <key>, or the URL form /v1/<key>/mcp). One key works on every chain and network.',
        inputSchema: {
          name: z
            .string({ error: 'name must be a string: the project name, 1 to 100 characters' })
            .trim()
            .min(1, 'name must not be empty: give the project name, 1 to 100 characters')
            .max(100, 'name is too long: at most 100 characters')
            .describe('Project name the key is for, shown on the key page'),
          network: z
            .enum(NETWORKS, { error: 'network must be "mainnet" or "testnet"' })
            .describe('"mainnet" for production keys, "testnet" for development keys'),
        },
        outputSchema: {
          url: z.string().describe('Key-creation page with the name and network filled in'),
          name: z.string(),
          network: z.enum(NETWORKS),
        },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      async (deps, { name, network }) => structured({ url: keyLink(deps.appUrl, { name, network }), name, network }),
    ),
  ];
}
