import type { Config, LedgerConfig } from './config/schema.js';
import type { NetworkRef } from './edge/route.js';
import { GatewayError } from './errors.js';
import type { NetworkUpstreams } from './edge/upstreams.js';
import { DevnetPool } from './sandbox/devnets.js';
import type { LedgerSandbox } from './sandbox/index.js';
import { startOnce } from './startOnce.js';

/**
 * Local stand-ins for networks without configured upstreams, each started on first use (concurrent first uses share
 * one start) so twenty networks cost nothing until someone calls them. Their code loads on first use too: the ledger
 * sandbox brings @hashgraph/sdk, gRPC and GraphQL, which an idle `npm start` need not hold.
 */
export class LocalUpstreams {
  private readonly devnets: DevnetPool;
  private readonly ledgers = new Map<string, Promise<LedgerSandbox>>();
  private readonly evmGraphql = new Map<string, Promise<{ url: string; close(): Promise<void> }>>();

  constructor(private readonly config: Config) {
    // The production image leaves the sandbox's EVM out (ops/container/prune.mjs): say so at start, not at the first call.
    try {
      import.meta.resolve('@nomicfoundation/edr');
    } catch {
      throw new GatewayError(
        'SANDBOX_NOT_INSTALLED',
        'give a config whose networks name their upstreams (GATEWAY_CONFIG, docs/config.md), or build the image with --build-arg VARIANT=sandbox',
      );
    }
    this.devnets = new DevnetPool({ history: config.sandbox.history, blockIntervalMs: config.sandbox.blockIntervalMs });
  }

  ledger(network: NetworkRef): Promise<LedgerSandbox> {
    return startOnce(this.ledgers, network.id, async () =>
      (await import('./sandbox/index.js')).startLedgerSandbox({
        chainId: network.network.chainId,
        blockIntervalMs: this.config.sandbox.blockIntervalMs,
        host: '127.0.0.1',
        history: this.config.sandbox.history,
        jumboTransactions: this.config.sandbox.jumboTransactions,
      }),
    );
  }

  /** The ledger config of a sandbox network: its stand-in URLs and its operator. */
  async ledgerConfig(network: NetworkRef): Promise<LedgerConfig> {
    const sandbox = await this.ledger(network);
    return {
      mirrorUrl: sandbox.mirrorUrl,
      consensus: sandbox.consensus,
      operatorId: sandbox.operator.accountId,
      operatorKey: sandbox.operator.privateKey,
      graphqlUrl: sandbox.graphqlUrl,
      maxGas: 15_000_000,
      maxFeeTinybar: 2_000_000_000,
      // As a network's ledger config says what the network supports.
      jumboTransactions: this.config.sandbox.jumboTransactions,
    };
  }

  async upstreams(network: NetworkRef): Promise<NetworkUpstreams> {
    if (network.chain.kind === 'ledger') {
      const sandbox = await this.ledger(network);
      return { rpc: [], mirrorUrl: sandbox.mirrorUrl, graphqlUrl: sandbox.graphqlUrl };
    }
    const rpcUrl = await this.devnets.urlFor(network.id, network.network.chainId);
    if (!network.network.apis.includes('beta-graphql')) return { rpc: [rpcUrl] };
    const gql = await startOnce(this.evmGraphql, network.id, async () => (await import('./sandbox/graphql/evm.js')).startEvmGraphql(rpcUrl, { host: '127.0.0.1' }));
    return { rpc: [rpcUrl], graphqlUrl: gql.url };
  }

  async close(): Promise<void> {
    const settled = async <T extends { close(): Promise<void> }>(p: Promise<T>) => (await p.catch(() => undefined))?.close();
    await Promise.all([...this.evmGraphql.values()].map(settled));
    await Promise.all([...this.ledgers.values()].map(settled));
    await this.devnets.close();
  }
}
