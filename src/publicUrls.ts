import type { Config } from './config/schema.js';

/** The URLs users see: printed at start, put in the key page's snippet, and checked by the MCP endpoint. */
export interface PublicUrls {
  /** The bare domain, e.g. `http://localhost:8080`. */
  base: string;
  /** The app host serving /keys/new. */
  app: string;
  mcp: string;
  /** Base URL of one network's APIs: `{base}/{id}` on localhost, `https://{id}.{domain}` otherwise. */
  network(id: string): string;
  /** The ledger chain's REST base for a key-page snippet, ending in /api/v1. */
  mirror(network: 'mainnet' | 'testnet'): string;
  /** The ledger chain's JSON-RPC URL for a key-page snippet. */
  ledgerRpc(network: 'mainnet' | 'testnet'): string;
  /** Host header values this gateway answers to (with and without port). */
  hosts: string[];
  /** Origins a browser page of this gateway has. */
  origins: string[];
}

export function publicUrls(config: Config, port: number): PublicUrls {
  const domain = config.server.serviceDomain;
  const local = domain === 'localhost';
  const base = local ? `http://localhost:${port}` : `https://${domain}`;
  const network = (id: string) => (local ? `${base}/${id}` : `https://${id}.${domain}`);
  const app = config.server.appUrl ?? (local ? base : `https://app.${domain}`);
  const mcp = local ? `${base}/mcp` : `https://mcp.${domain}/mcp`;
  const ledgerChain = Object.entries(config.chains).find(([, c]) => c.kind === 'ledger')?.[0] ?? 'hedera';
  const ledgerId = (n: 'mainnet' | 'testnet') => (n === 'mainnet' ? ledgerChain : `${ledgerChain}-testnet`);
  const names = local ? ['localhost', 'mcp.localhost', 'app.localhost', '127.0.0.1', '[::1]'] : [domain, `mcp.${domain}`, `app.${domain}`];
  return {
    base,
    app,
    mcp,
    network,
    mirror: (n) => `${network(ledgerId(n))}/api/v1`,
    ledgerRpc: (n) => `${network(ledgerId(n))}/rpc`,
    hosts: names.flatMap((h) => [h, `${h}:${port}`]),
    origins: [...new Set([base, app, ...names.flatMap((h) => (local ? [`http://${h}:${port}`] : [`https://${h}`]))])],
  };
}
