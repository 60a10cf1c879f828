import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { networkId } from '../../config/load.js';
import type { NetworkApi } from '../../config/schema.js';
import type { NetworkRef, Router } from '../../edge/route.js';
import { GatewayError } from '../../errors.js';
import type { VerifiedKey } from '../../keys/types.js';
import { keyLink } from '../keyLink.js';
import type { SelfCall, SelfClient } from '../selfClient.js';

/** What every tool of one MCP request sees: the gateway's networks, its own APIs and the caller, if any. */
export interface ToolDeps {
  router: Router;
  appUrl: string;
  client: SelfClient;
  requestId: string;
  caller?: { key: VerifiedKey; raw: string };
}

/** The caller's key for a loopback call; without one, the error tells the agent how to get and send a key. */
export function requireKey(deps: ToolDeps): SelfCall {
  if (!deps.caller) {
    throw new GatewayError('KEY_MISSING', `this tool needs one. Get a key at ${keyLink(deps.appUrl)} (the get_api_key_link tool builds the link for a project), then add it to this MCP server's connection settings`);
  }
  return { key: deps.caller.raw, requestId: deps.requestId };
}

/** Resolves chain and network names to a configured network offering `api`, or says what exists. */
export function findNetwork(router: Router, chain: string, network: string, api: NetworkApi): NetworkRef {
  const ref = router.network(networkId(chain, network));
  if (!ref) {
    const names = router.networks().filter((n) => n.chainName === chain).map((n) => n.networkName);
    throw new GatewayError('NOT_FOUND', names.length ? `${chain} has the networks ${names.join(', ')}` : `no chain "${chain}"; list_chains lists them`);
  }
  if (!ref.network.apis.includes(api)) throw new GatewayError('API_NOT_OFFERED', `${ref.id} offers ${ref.network.apis.join(', ')}`);
  return ref;
}

/** A successful tool answer: structured content, mirrored as JSON text for clients that only read text. */
export function structured<T extends Record<string, unknown>>(value: T): CallToolResult & { structuredContent: T } {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}
