import type { NetworkRef } from './route.js';

/** Where one network's APIs are answered. In sandbox mode these are local stand-ins started on first use. */
export interface NetworkUpstreams {
  /** JSON-RPC upstreams in failover order (EVM chains). */
  rpc: string[];
  /** Mirror-node REST base URL, without /api/v1 (ledger chain). */
  mirrorUrl?: string;
  mirrorApiKey?: string;
  /** GraphQL upstream: the ledger's /v1/graphql or the EVM chain's /beta/graphql. */
  graphqlUrl?: string;
}

export type UpstreamResolver = (network: NetworkRef) => Promise<NetworkUpstreams>;
