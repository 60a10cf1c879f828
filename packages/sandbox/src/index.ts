/**
 * The package's one entry point. It stays light: the prefunded accounts and the devnet pool load with it, while the
 * ledger sandbox (@hashgraph/sdk, gRPC, GraphQL), the devnets' EVM and the EVM GraphQL stand-in load on first start,
 * so a gateway that imports this and serves nothing from it holds none of them.
 */
import type { LedgerSandbox, LedgerSandboxOptions } from './ledgerSandbox.js';
import type { StandIn } from './graphql/server.js';

export { sandboxAccounts, localNodeAccounts, PREFUNDED_WEIBAR, type SandboxAccount } from './accounts.js';
export { DevnetPool } from './devnets.js';
export type { Devnet } from './devnet.js';
export type { LedgerSandbox, LedgerSandboxOptions } from './ledgerSandbox.js';
export type { LedgerHistory } from './history/ledger.js';
export type { SandboxPorts } from './cliSettings.js';
export type { StandIn } from './graphql/server.js';

/** Starts a ledger sandbox (ledgerSandbox.ts): its chain, consensus node, mirror node and GraphQL stand-in. */
export async function startLedgerSandbox(opts: LedgerSandboxOptions): Promise<LedgerSandbox> {
  return (await import('./ledgerSandbox.js')).startLedgerSandbox(opts);
}

/** Serves the EIP-1767 subset for the devnet at `rpcUrl` on `/beta/graphql` (graphql/evm.ts). */
export async function startEvmGraphql(rpcUrl: string, opts: { host?: string; port?: number } = {}): Promise<StandIn> {
  return (await import('./graphql/evm.js')).startEvmGraphql(rpcUrl, opts);
}
