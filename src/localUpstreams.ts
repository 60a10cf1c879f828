import type { Config, LedgerConfig } from './config/schema.js';
import type { NetworkRef } from './edge/route.js';
import { GatewayError } from './errors.js';
import type { NetworkUpstreams } from './edge/upstreams.js';
import type { DevnetPool, LedgerSandbox, SandboxAccount, StandIn } from '@multichain-gateway/sandbox';
import { startOnce } from './startOnce.js';

/**
 * Local stand-ins for networks without configured upstreams, each started on first use (concurrent first uses share
 * one start) so twenty networks cost nothing until someone calls them. Their code loads on first use too: the ledger
 * sandbox brings @hashgraph/sdk, gRPC and GraphQL, which an idle `npm start` need not hold. They all come from the
 * @multichain-gateway/sandbox package (packages/sandbox), imported here only, and only when first needed.
 */
export class LocalUpstreams {
  private sandbox?: Promise<typeof import('@multichain-gateway/sandbox')>;
  private devnets?: Promise<DevnetPool>;
  private readonly ledgers = new Map<string, Promise<LedgerSandbox>>();
  private readonly evmGraphql = new Map<string, Promise<StandIn>>();

  constructor(private readonly config: Config) {
    // The production image leaves the sandbox package and its EVM out (ops/container/prune.mjs): say so at start, not at
    // the first call.
    try {
      import.meta.resolve('@multichain-gateway/sandbox');
      import.meta.resolve('@nomicfoundation/edr');
    } catch {
      throw new GatewayError(
        'SANDBOX_NOT_INSTALLED',
        'give a config whose networks name their upstreams (GATEWAY_CONFIG, docs/config.md), or build the image with --build-arg VARIANT=sandbox',
      );
    }
  }

  private package(): Promise<typeof import('@multichain-gateway/sandbox')> {
    return (this.sandbox ??= import('@multichain-gateway/sandbox'));
  }

  /** The prefunded accounts every sandbox network starts with (the banner lists them). */
  async accounts(): Promise<SandboxAccount[]> {
    return (await this.package()).sandboxAccounts();
  }

  private devnetPool(): Promise<DevnetPool> {
    const { history, blockIntervalMs } = this.config.sandbox;
    return (this.devnets ??= this.package().then(({ DevnetPool }) => new DevnetPool({ history, blockIntervalMs })));
  }

  ledger(network: NetworkRef): Promise<LedgerSandbox> {
    return startOnce(this.ledgers, network.id, async () =>
      (await this.package()).startLedgerSandbox({
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
    const rpcUrl = await (await this.devnetPool()).urlFor(network.id, network.network.chainId);
    if (!network.network.apis.includes('beta-graphql')) return { rpc: [rpcUrl] };
    const gql = await startOnce(this.evmGraphql, network.id, async () => (await this.package()).startEvmGraphql(rpcUrl, { host: '127.0.0.1' }));
    return { rpc: [rpcUrl], graphqlUrl: gql.url };
  }

  async close(): Promise<void> {
    const settled = async <T extends { close(): Promise<void> }>(p: Promise<T>) => (await p.catch(() => undefined))?.close();
    await Promise.all([...this.evmGraphql.values()].map(settled));
    await Promise.all([...this.ledgers.values()].map(settled));
    await (await this.devnets)?.close();
  }
}
