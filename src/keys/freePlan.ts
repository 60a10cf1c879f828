import type { Config } from '../config/schema.js';
import { humanList, title } from '../limits/relayAccess.js';

const API_NAMES: Record<string, string> = {
  rpc: 'JSON-RPC on the EVM chains',
  rest: 'the mirror-node REST API',
  graphql: 'GraphQL',
  'beta-graphql': 'the beta GraphQL',
  mcp: 'the MCP endpoint',
};

/** What a free key includes, for the key page: budget, quota, APIs, and who gets the ledger relay. */
export function describeFreePlan(config: Pick<Config, 'plans' | 'limits'>): string {
  const free = config.plans.free;
  if (!free) return '';
  const apis = humanList(free.apis.map((a) => API_NAMES[a] ?? a));
  const budget = `A free key includes ${free.requestsPerSecond.toLocaleString('en-US')} requests per second and ${free.monthlyQuota.toLocaleString('en-US')} a month, shared by every network and API: ${apis}.`;
  const { relayPhase, relayPlans } = config.limits;
  if (relayPhase === 'beta') return `${budget} The Hedera JSON-RPC relay is in beta, open to keys the operator enables.`;
  if (relayPlans.map((p) => p.toLowerCase()).includes('free')) return `${budget} It includes the Hedera JSON-RPC relay.`;
  return `${budget} The Hedera JSON-RPC relay is included in the ${humanList(relayPlans.map(title))} plans.`;
}
