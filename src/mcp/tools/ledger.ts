import { z } from 'zod';
import { normalisePath } from '../../edge/paths.js';
import type { Router } from '../../edge/route.js';
import { ToolFailure } from '../selfClient.js';
import { findNetwork, requireKey, structured } from './deps.js';
import { defineTool, type ToolDefinition } from './define.js';
import { chainInput, networkInput } from './inputs.js';

/** `ledger_rest_get` and `ledger_graphql`: the ledger chain's mirror-node REST and GraphQL through the gateway. */
export function ledgerTools(router: Router): ToolDefinition[] {
  const ledger = router.networks().find((n) => n.chain.kind === 'ledger');
  if (!ledger) return [];
  const defaultChain = ledger.chainName;
  const where = { chain: chainInput(router, 'ledger').optional().describe('Ledger chain; the first one (usually hedera) by default'), network: networkInput };

  return [
    defineTool(
      'ledger_rest_get',
      {
        title: 'Mirror-node REST GET',
        description:
          'GETs a mirror-node REST path on a ledger network (Hedera): accounts, balances, tokens, transactions, contracts, topics and their messages, ' +
          'blocks, network fees. Examples: /api/v1/accounts/0.0.98, /api/v1/transactions?account.id=0.0.98&limit=5&order=desc, ' +
          '/api/v1/tokens/0.0.1234/balances. Follow links.next in an answer to page. Charged to your API key like any request.',
        inputSchema: {
          ...where,
          path: z
            .string()
            .regex(/^\/(api\/v1\/)?[A-Za-z0-9]/, 'path must be a mirror-node REST path such as /api/v1/accounts/0.0.98 (the /api/v1 prefix may be left out)')
            .max(2048, 'path is too long: at most 2048 characters')
            .describe('Mirror-node path with query, e.g. /api/v1/accounts/0.0.98'),
        },
        outputSchema: { chain: z.string(), network: z.string(), path: z.string(), body: z.unknown().describe('The mirror-node JSON answer') },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      },
      async (deps, { chain, network, path }) => {
        const call = requireKey(deps);
        const ref = findNetwork(deps.router, chain ?? defaultChain, network, 'rest');
        const apiPath = path.startsWith('/api/v1/') ? path : `/api/v1${path}`;
        const q = apiPath.indexOf('?');
        const normalised = normalisePath(q < 0 ? apiPath : apiPath.slice(0, q));
        // The edge would refuse it too; saying so here names the tool's argument.
        if (normalised.unsafe || !normalised.path.startsWith('/api/v1/')) {
          throw new ToolFailure(`The path must stay under /api/v1/ without "." or ".." segments; got ${path}.`);
        }
        const body = await deps.client.rest(ref.id, normalised.path + (q < 0 ? '' : apiPath.slice(q)), call);
        return structured({ chain: ref.chainName, network: ref.networkName, path: apiPath, body });
      },
    ),
    defineTool(
      'ledger_graphql',
      {
        title: 'Ledger GraphQL query',
        description:
          'Runs a GraphQL query on a ledger network (Hedera) over mirror-node data, for example ' +
          '`{ account(input: {entityId: {shard: 0, realm: 0, num: 98}}) { balance } }`. Returns data and any GraphQL errors. Charged to your API key like any request.',
        inputSchema: {
          ...where,
          query: z.string().min(1, 'query must be a GraphQL document').max(65_536, 'query is too long: at most 65536 characters').describe('GraphQL query document'),
          variables: z.record(z.string(), z.unknown()).optional().describe('GraphQL variables as a JSON object'),
        },
        outputSchema: {
          chain: z.string(),
          network: z.string(),
          data: z.unknown().describe('GraphQL data; null when the query failed as a whole'),
          errors: z.array(z.unknown()).optional().describe('GraphQL errors, if any'),
        },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      },
      async (deps, { chain, network, query, variables }) => {
        const call = requireKey(deps);
        const ref = findNetwork(deps.router, chain ?? defaultChain, network, 'graphql');
        const answer = await deps.client.graphql(ref.id, { query, variables }, call);
        const data = answer.data ?? null;
        if (data === null && answer.errors?.length) throw new ToolFailure(`GraphQL errors on ${ref.id}: ${JSON.stringify(answer.errors)}`);
        return structured({ chain: ref.chainName, network: ref.networkName, data, ...(answer.errors ? { errors: answer.errors } : {}) });
      },
    ),
  ];
}
