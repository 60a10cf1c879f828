import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config, LedgerConfig } from './config/schema.js';
import { Edge } from './edge/edge.js';
import { createOpsHandler, type ReadinessCheck } from './edge/ops.js';
import { Router, type ApiKind, type NetworkRef } from './edge/route.js';
import type { ApiHandler } from './edge/types.js';
import type { NetworkUpstreams, UpstreamResolver } from './edge/upstreams.js';
import { GatewayError } from './errors.js';
import { createGraphqlProxy } from './graphql/proxy.js';
import { ensureDemoKey } from './keys/demo.js';
import { createKeysPage } from './keys/page.js';
import { openKeyStore, type KeyStore } from './keys/store.js';
import { createKeyVerifier } from './keys/verifier.js';
import { createLedgerRelay, type LedgerRelay } from './ledger/relay.js';
import { createLimiter } from './limits/index.js';
import type { Limiter } from './limits/types.js';
import type { LocalUpstreams } from './localUpstreams.js';
import { createLogger } from './log.js';
import { createMcpHandler } from './mcp/handler.js';
import { instrumentRelay, registry } from './metrics.js';
import { createRestProxy } from './rest/proxy.js';
import type { RpcBackend } from './rpc/answer.js';
import { EvmForwarder } from './rpc/evmForwarder.js';
import { createRpcHandler } from './rpc/handler.js';
import { UpstreamPool } from './rpc/upstreamPool.js';
import { publicUrls, type PublicUrls } from './publicUrls.js';
import { startOnce } from './startOnce.js';

export interface Gateway {
  config: Config;
  url: string;
  port: number;
  urls: PublicUrls;
  router: Router;
  keyStore: KeyStore;
  limiter: Limiter;
  /** The embedded store's demo key, when one was created or kept. */
  demoKey?: string;
  /** Local stand-ins, when the sandbox serves networks without upstreams. */
  local?: LocalUpstreams;
  close(): Promise<void>;
}

export interface GatewayOptions {
  logger?: Logger;
  /** Supply a limiter or key store shared with a test; the gateway then does not close them. */
  limiter?: Limiter;
  keyStore?: KeyStore;
}

/** Builds every part from the config, listens, and returns a handle that shuts it all down gracefully. */
export async function startGateway(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
  const logger = opts.logger ?? createLogger(config.log.level);
  const router = new Router(config);
  // The sandbox (an EVM, gRPC and HTTP stand-ins) is loaded only when it serves something.
  const local = config.sandbox.enabled ? new (await import('./localUpstreams.js')).LocalUpstreams(config) : undefined;
  const keyStore = opts.keyStore ?? (await openKeyStore({ keys: config.keys, plans: config.plans }));
  const verifier = createKeyVerifier(keyStore, config.keys, config.plans);
  const limiter = opts.limiter ?? (await createLimiter({ limits: config.limits, usage: keyStore, logger }));
  const demoKey = !config.keys.databaseUrl && config.keys.demoKey ? await ensureDemoKey(keyStore, config.keys.dataDir) : undefined;

  const upstreams: UpstreamResolver = async (network) => {
    const configured = configuredUpstreams(network);
    if (configured) return configured;
    if (local) return local.upstreams(network);
    throw new GatewayError('UPSTREAM_NOT_CONFIGURED', network.id);
  };
  const backends = new Backends(config, upstreams, local, logger);

  const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 120_000 });
  server.listen(config.server.port, config.server.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const urls = publicUrls(config, port);
  const selfUrl = `http://${config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host}:${port}`;

  const graphql = createGraphqlProxy({
    upstreams,
    timeoutMs: config.server.upstreamTimeoutMs,
    verify: verifier,
    revocationCheckMs: config.keys.cacheTtlMs,
    idleTimeoutMs: config.server.subscriptionIdleTimeoutMs,
  });
  let edge: Edge;
  const readiness = (): ReadinessCheck[] => [
    { name: 'keyStore', check: () => keyStore.ping() },
    {
      name: 'limiter',
      check: async () => {
        if (!(await limiter.ping())) throw new Error('limiter backend unreachable');
      },
    },
    ...backends.readinessChecks(router.networks()),
  ];
  const handlers: Partial<Record<ApiKind, ApiHandler>> = {
    rpc: createRpcHandler({ backendFor: (n) => backends.for(n), limiter, maxBatch: config.server.maxBatchSize }),
    rest: createRestProxy({ upstreams, timeoutMs: config.server.upstreamTimeoutMs }),
    graphql,
    'beta-graphql': graphql,
    mcp: createMcpHandler({
      router,
      appUrl: urls.app,
      selfUrl: () => selfUrl,
      allowedHosts: urls.hosts,
      allowedOrigins: urls.origins,
      bodyLimitBytes: config.server.bodyLimitBytes,
    }),
    keys: createKeysPage({ store: keyStore, appUrl: urls.app, mirrorUrlFor: (n) => urls.mirror(n) }),
    ops: createOpsHandler({ registry, checks: readiness, isDraining: () => edge.isDraining }),
  };
  edge = new Edge({ config, router, verifier, limiter, handlers, logger });
  server.on('request', edge.handle);
  server.on('upgrade', edge.upgrade);
  logger.info({ url: selfUrl, sandbox: config.sandbox.enabled }, 'gateway listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      server.close();
      await edge.drain(config.server.shutdownGraceMs);
      server.closeAllConnections();
      await Promise.all([...new Set(Object.values(handlers))].map((h) => h.close?.()));
      await backends.close();
      await local?.close();
      if (!opts.limiter) await limiter.close();
      if (!opts.keyStore) await keyStore.close();
      logger.info('gateway stopped');
    })());

  return { config, url: selfUrl, port, urls, router, keyStore, limiter, demoKey, local, close };
}

/** Upstreams from the operator's config, or undefined when the network has none and the sandbox should serve it. */
function configuredUpstreams(network: NetworkRef): NetworkUpstreams | undefined {
  const { ledger, upstreams, graphqlUrl } = network.network;
  if (ledger) return { rpc: [], mirrorUrl: ledger.mirrorUrl, mirrorApiKey: ledger.mirrorApiKey, graphqlUrl: ledger.graphqlUrl };
  if (upstreams.length > 0) return { rpc: upstreams, graphqlUrl };
  return undefined;
}

/** One JSON-RPC backend per network, built on first use: an upstream pool for EVM chains, the relay for the ledger. */
class Backends {
  private readonly evm = new Map<string, { pool: UpstreamPool; backend: EvmForwarder }>();
  private readonly relays = new Map<string, Promise<LedgerRelay>>();

  constructor(
    private readonly config: Config,
    private readonly upstreams: UpstreamResolver,
    private readonly local: LocalUpstreams | undefined,
    private readonly logger: Logger,
  ) {}

  async for(network: NetworkRef): Promise<RpcBackend> {
    return network.chain.kind === 'ledger' ? this.relay(network) : this.evmBackend(network).backend;
  }

  private evmBackend(network: NetworkRef) {
    let entry = this.evm.get(network.id);
    if (!entry) {
      const pool = new UpstreamPool(network.id, async () => (await this.upstreams(network)).rpc, this.config.server.upstreamTimeoutMs);
      entry = { pool, backend: new EvmForwarder(network.network.chainId, pool) };
      this.evm.set(network.id, entry);
    }
    return entry;
  }

  private relay(network: NetworkRef): Promise<LedgerRelay> {
    return startOnce(this.relays, network.id, async () =>
      instrumentRelay(network.id, createLedgerRelay({
          network: network.id,
          chainId: network.network.chainId,
          ledger: await this.ledgerConfig(network),
          relay: this.config.relay,
          logger: this.logger,
        })),
    );
  }

  private async ledgerConfig(network: NetworkRef): Promise<LedgerConfig> {
    if (network.network.ledger) return network.network.ledger;
    if (this.local) return this.local.ledgerConfig(network);
    throw new GatewayError('UPSTREAM_NOT_CONFIGURED', network.id);
  }

  /** Networks with configured upstreams must have one reachable; sandbox networks start on demand and are not probed. */
  readinessChecks(networks: NetworkRef[]): ReadinessCheck[] {
    return networks
      .filter((n) => configuredUpstreams(n))
      .map((n) => ({
        name: `upstream:${n.id}`,
        check: async () => {
          if (n.chain.kind === 'ledger') {
            const res = await fetch(new URL('/api/v1/network/exchangerate', n.network.ledger!.mirrorUrl), { signal: AbortSignal.timeout(2_000) });
            if (!res.ok) throw new Error(`mirror node answered ${res.status}`);
            return;
          }
          await this.evmBackend(n).pool.post('{"jsonrpc":"2.0","id":0,"method":"eth_blockNumber","params":[]}');
        },
      }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.evm.values()].map((e) => e.pool.close()));
    await Promise.all([...this.relays.values()].map(async (r) => (await r.catch(() => undefined))?.close()));
  }
}
