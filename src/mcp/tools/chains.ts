import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { API_KINDS } from '../../config/schema.js';
import { requireKey, structured, type ToolDeps } from './deps.js';

const networkShape = z.object({
  network: z.string().describe('Network name to pass as `network` to the other tools'),
  id: z.string().describe('Network id used in URLs: /<id>/rpc on the bare domain, or <id>.<domain>'),
  chainId: z.number().int(),
  apis: z.array(z.enum(API_KINDS)).describe('rpc: JSON-RPC; rest and graphql: ledger mirror-node APIs; beta-graphql: EVM GraphQL'),
});

/** `list_chains`: what this gateway serves, from its configuration. */
export function registerChainTools(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'list_chains',
    {
      title: 'List chains and networks',
      description:
        'Lists every chain this gateway serves with its networks, EVM chain ids and the APIs each network offers ' +
        '(rpc for rpc_call, rest and graphql for ledger_rest_get and ledger_graphql). Call it first to learn valid chain and network names. Needs an API key.',
      inputSchema: {},
      outputSchema: {
        chains: z.array(
          z.object({
            chain: z.string().describe('Chain name to pass as `chain` to the other tools'),
            displayName: z.string(),
            kind: z.enum(['evm', 'ledger']).describe('ledger: Hedera-style chain with mirror-node REST and GraphQL'),
            networks: z.array(networkShape),
          }),
        ),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async () => {
      requireKey(deps);
      const chains = new Map<string, { chain: string; displayName: string; kind: 'evm' | 'ledger'; networks: z.infer<typeof networkShape>[] }>();
      for (const ref of deps.router.networks()) {
        let entry = chains.get(ref.chainName);
        if (!entry) chains.set(ref.chainName, (entry = { chain: ref.chainName, displayName: ref.chain.displayName, kind: ref.chain.kind, networks: [] }));
        entry.networks.push({ network: ref.networkName, id: ref.id, chainId: ref.network.chainId, apis: ref.network.apis });
      }
      return structured({ chains: [...chains.values()] });
    },
  );
}
