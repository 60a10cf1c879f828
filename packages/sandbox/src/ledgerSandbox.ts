/**
 * The ledger sandbox: one in-process ledger (EVM-backed chain, consensus node over gRPC, mirror-node REST and GraphQL
 * stand-ins over the same records) on loopback ports.
 */
import { localNodeAccounts, sandboxAccounts } from './accounts.js';
import type { SandboxPorts } from './cliSettings.js';
import { startLedgerGraphql } from './graphql/ledger.js';
import { buildLedgerHistory, type LedgerHistory } from './history/ledger.js';
import { LedgerChain } from './ledger/chain.js';
import { startConsensusNode } from './ledger/consensus.js';
import { startMirrorNode } from './mirror/server.js';

export interface LedgerSandbox {
  chain: LedgerChain;
  mirrorUrl: string;
  /** `{ "host:port": "0.0.3" }`, the network map `Client.forNetwork` takes. */
  consensus: Record<string, string>;
  graphqlUrl?: string;
  /** The relay's operator, an ordinary account that pays fees: account id and its ED25519 private key (DER hex). */
  operator: { accountId: string; privateKey: string };
  /** The fee-exempt treasury 0.0.2 and its key (DER hex), for tools that expect a superuser operator. */
  superuser: { accountId: string; privateKey: string };
  /** What the starting history made, when it was built. */
  history?: LedgerHistory;
  /** The prefunded ECDSA accounts (10,000 HBAR each). */
  accounts: Array<{ address: string; privateKey: string; accountId: string }>;
  /** The Hiero local node's published ECDSA accounts (accounts.ts), prefunded the same, with the sandbox's ids. */
  localNodeAccounts: Array<{ address: string; privateKey: string; accountId: string }>;
  close(): Promise<void>;
}

/**
 * `history`: build the starting history (accounts, transfers, tokens, a revert) before answering (default false).
 * `ports`: a listener without one listens on a free port.
 * `jumboTransactions: false` makes a network from before HIP-1086, whose transactions are all at most 6 KiB.
 * `maxRefundPercentOfGasLimit: 20` makes a network that charges at least 80% of an EVM transaction's gas limit.
 */
export interface LedgerSandboxOptions {
  chainId: number;
  blockIntervalMs?: number;
  host?: string;
  history?: boolean;
  ports?: SandboxPorts;
  jumboTransactions?: boolean;
  maxRefundPercentOfGasLimit?: number;
}

export async function startLedgerSandbox(opts: LedgerSandboxOptions): Promise<LedgerSandbox> {
  const host = opts.host ?? '127.0.0.1';
  const chain = await LedgerChain.create({
    chainId: opts.chainId,
    blockIntervalMs: opts.blockIntervalMs,
    jumboTransactions: opts.jumboTransactions,
    maxRefundPercentOfGasLimit: opts.maxRefundPercentOfGasLimit,
  });
  const closers: Array<() => Promise<void>> = [() => chain.close()];
  const close = async () => {
    // Servers first, the chain last: nothing may read a closed EVM.
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    const node = await startConsensusNode(chain, { host, port: opts.ports?.consensus });
    closers.push(() => node.close());
    const mirror = await startMirrorNode(chain, { host, port: opts.ports?.mirror });
    closers.push(() => mirror.close());
    const graphql = await startLedgerGraphql(chain, { host, port: opts.ports?.graphql });
    closers.push(() => graphql.close());
    const operator = { accountId: chain.operator.accountId, privateKey: chain.operator.privateKey.toStringDer() };
    const consensus = { [node.address]: node.nodeAccountId };
    const history = opts.history ? await buildLedgerHistory({ chain, consensus, operator }) : undefined;
    return {
      chain,
      mirrorUrl: mirror.url,
      consensus,
      graphqlUrl: graphql.url,
      operator,
      superuser: { accountId: chain.superuser.accountId, privateKey: chain.superuser.privateKey.toStringDer() },
      history,
      accounts: sandboxAccounts().map((a) => ({ ...a, accountId: chain.account(a.address)!.id })),
      localNodeAccounts: localNodeAccounts().map((a) => ({ ...a, accountId: chain.account(a.address)!.id })),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
