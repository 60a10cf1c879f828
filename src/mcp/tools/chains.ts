import { z } from 'zod';
import { API_KINDS } from '../../config/schema.js';
import type { Router } from '../../edge/route.js';
import { requireKey, structured } from './deps.js';
import { defineTool, type ToolDefinition } from './define.js';

const networkShape = z.object({
  network: z.string().describe('Network name to pass as `network` to the other tools'),
  id: z.string().describe('Network id used in URLs: /<id>/rpc on the bare domain, or <id>.<domain>'),
  chainId: z.number().int(),
  apis: z.array(z.enum(API_KINDS)).describe('rpc: JSON-RPC; rest and graphql: ledger mirror-node APIs; beta-graphql: EVM GraphQL'),
});

type ChainEntry = { chain: string; displayName: string; kind: 'evm' | 'ledger'; networks: z.infer<typeof networkShape>[] };

/** `list_chains`: what this gateway serves, from its configuration (fixed for the process, so built once). */
export function chainTools(router: Router): ToolDefinition[] {
  const chains = new Map<string, ChainEntry>();
  for (const ref of router.networks()) {
    let entry = chains.get(ref.chainName);
    if (!entry) chains.set(ref.chainName, (entry = { chain: ref.chainName, displayName: ref.chain.displayName, kind: ref.chain.kind, networks: [] }));
    entry.networks.push({ network: ref.networkName, id: ref.id, chainId: ref.network.chainId, apis: ref.network.apis });
  }
  const answer = { chains: [...chains.values()] };
  return [
    defineTool(
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
      async (deps) => {
        requireKey(deps);
        return structured(answer);
      },
    ),
  ];
}
