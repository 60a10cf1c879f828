import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config, LedgerConfig } from './config/schema.js';
import { Edge } from './edge/edge.js';
import { createOps, type ReadinessCheck } from './edge/ops.js';
import { PrivateListener, privatePort } from './edge/privateListener.js';
import { createPublicServer } from './edge/publicServer.js';
import { tarpitOf } from './edge/tarpit.js';
import { OPS_PATHS, Router, type ApiKind, type NetworkRef } from './edge/route.js';
import type { ApiHandler } from './edge/types.js';
import type { NetworkUpstreams, UpstreamResolver } from './edge/upstreams.js';
import { GatewayError } from './errors.js';
import { createGraphqlProxy } from './graphql/proxy.js';
import { storeAdmin } from './keys/admin.js';
import { ADMIN_PREFIX, createAdminApi } from './keys/adminApi.js';
import { writeAdminFile } from './keys/adminFile.js';
import { ensureDemoKey } from './keys/demo.js';
import { CreationBudget } from './keys/creationBudget.js';
import { describeFreePlan } from './keys/freePlan.js';
import { createKeysPage } from './keys/page.js';
import { openKeyStore, type KeyStore } from './keys/store.js';
import { createKeyVerifier } from './keys/verifier.js';
import { createLedgerRelay, type LedgerRelay } from './relay/ledgerRelay.js';
import { debugPlans } from './limits/debugAccess.js';
import { createHbarBudgets, type HbarBudgets } from './limits/hbarBudgets.js';
import { createLimiter } from './limits/index.js';
import type { Limiter, WriteBudget } from './limits/types.js';
import type { LocalUpstreams } from './localUpstreams.js';
import { createLogger } from './log.js';
import { createMcpHandler } from './mcp/handler.js';
import { FilterService } from './live/filters.js';
import { MemoryFilterStore, RedisFilterStore } from './live/filterStore.js';
import { NetworkFeed } from './live/feed.js';
import { backendCaller, rpcSource } from './live/source.js';
import { SharedLive } from './live/sharedFollower.js';
import { SharedCaches } from './ledger/sharedCache.js';
import { SharedSubmissions } from './ledger/sharedPendingPool.js';
import { UpstreamHeads } from './live/upstreamHeads.js';
import { registry, trackFilters } from './metrics.js';
import { instrumentRelay } from './relay/instrument.js';
import { createRestProxy } from './rest/proxy.js';
import type { RpcBackend } from './rpc/answer.js';
import { EvmForwarder, logLimits } from './rpc/evmForwarder.js';
import { MethodPolicy } from './rpc/methodPolicy.js';
import { createRpcHandler } from './rpc/handler.js';
import { ALWAYS_200, ledgerStatusRule } from './rpc/httpStatus.js';
import { UpstreamPool } from './rpc/upstreamPool.js';
import { publicUrls, type PublicUrls } from './publicUrls.js';
import { startOnce } from './startOnce.js';
import { createUsageHandler } from './usage/handler.js';

export interface Gateway {
  config: Config;
  url: string;
  port: number;
  urls: PublicUrls;
  /** The private listener, when something is mounted on it. */
  privateUrl?: string;
  /** The admin API's base URL on the private listener, when the API is on. */
  adminUrl?: string;
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
  /** Clock of filter expiry and hbar-limit windows, in ms; tests inject one. */
  now?: () => number;
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
  const hbar = await createHbarBudgets({ limits: config.hbarLimits, plans: config.plans, store: keyStore, redisUrl: config.limits.redisUrl, logger, now: opts.now });
  const demoKey = !config.keys.databaseUrl && config.keys.demoKey ? await ensureDemoKey(keyStore, config.keys.dataDir) : undefined;

  const upstreams: UpstreamResolver = async (network) => {
    const configured = configuredUpstreams(network);
    if (configured) return configured;
    if (local) return local.upstreams(network);
    throw new GatewayError('UPSTREAM_NOT_CONFIGURED', network.id);
  };
  const filters = new FilterService({
    store: config.limits.redisUrl ? await RedisFilterStore.open(config.limits.redisUrl) : new MemoryFilterStore(),
    timeoutMs: config.live.filterTimeoutMs,
    now: opts.now,
  });
  const untrackFilters = trackFilters(() => filters.size());
  const shared = config.limits.redisUrl ? await SharedLive.open(config.limits.redisUrl, config.live.leaseMs) : undefined;
  const { redisUrl } = config.limits;
  const { sharedCacheBytes: bytes, sharedCacheTtlMs: ttlMs, sharedCacheMaxEntryBytes: maxEntryBytes } = config.relay;
  const caches = redisUrl && bytes > 0 ? await SharedCaches.open(redisUrl, { bytes, ttlMs, maxEntryBytes }) : undefined;
  // Only ledger networks submit; the connection is made anyway, as for the shared cache.
  const submissions = redisUrl ? await SharedSubmissions.open(redisUrl) : undefined;
  const backends = new Backends(config, upstreams, local, logger, filters, hbar, shared, caches, submissions);
  backends.checkConfiguredUpstreams(router.networks());

  const tarpit = tarpitOf(config.server);
  const server = createPublicServer(config.server, tarpit);
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
    maxPayloadBytes: config.server.wsMaxPayloadBytes,
    idleTimeoutMs: config.server.subscriptionIdleTimeoutMs,
    server: config.server,
    logRangeFor: async (n) => {
      if (n.chain.kind !== 'evm') return undefined;
      const backend = backends.evmForwarder(n);
      return (field, bounds, maxBlocks) => backend.checkLogRange(field, bounds, maxBlocks);
    },
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
  const ops = createOps({ registry, checks: readiness, isDraining: () => edge.isDraining, publicToken: config.ops.token });
  const usageSources = {
    store: keyStore,
    unflushed: (keyId: string) => limiter.unflushedUsage?.(keyId) ?? [],
    hbar: { budgets: hbar, networks: router.networks().filter((n) => n.chain.kind === 'ledger').map((n) => n.id) },
  };
  const ledgerRule = ledgerStatusRule(config.relay);
  const handlers: Partial<Record<ApiKind, ApiHandler>> = {
    rpc: createRpcHandler({
      backendFor: (n) => backends.for(n),
      limiter,
      maxBatch: config.server.maxBatchSize,
      statusRuleFor: (n) => (n.chain.kind === 'ledger' ? ledgerRule : ALWAYS_200),
      errorPrefixFor: (n, requestId) => (n.chain.kind === 'ledger' && config.relay.requestIdInErrors ? `[Request ID: ${requestId}] ` : undefined),
      debugPlans: debugPlans(config.plans),
      sockets: {
        feedFor: (n) => backends.feed(n),
        pingIntervalMs: config.server.wsPingIntervalMs,
        idleTimeoutMs: config.server.subscriptionIdleTimeoutMs,
        maxBufferedBytes: config.server.wsMaxBufferedBytes,
        logger,
      },
      writeBudgetFor: (n) => writeBudgetOf(n, config),
    }),
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
    keys: createKeysPage({
      store: keyStore,
      appUrl: urls.app,
      mirrorUrlFor: (n) => urls.mirror(n),
      rpcUrlFor: (n) => urls.ledgerRpc(n),
      freePlan: describeFreePlan(config),
      selfService: config.keys.selfService,
      budget: new CreationBudget({ windowMs: config.keys.creationWindowMs, perClient: config.keys.creationsPerClient, perWindow: config.keys.creationsPerWindow }),
      clientIpHeader: config.server.clientIpHeader,
    }),
    ops: ops.publicHandler,
    usage: createUsageHandler({ sources: usageSources, verifier }),
  };
  edge = new Edge({ config, router, verifier, limiter, handlers, logger, tarpit });

  const privateListener = new PrivateListener({ host: config.private.host, port: privatePort(config), logger });
  for (const path of OPS_PATHS) privateListener.mount(path, ops.privateHandler);
  // The embedded store belongs to this one process, so the local CLI can only reach it through this gateway: it gets
  // a token made for this run, handed over in a 0600 file beside the store.
  const localAdmin = keyStore.kind === 'embedded';
  const adminToken = config.admin.token ?? (localAdmin ? randomBytes(32).toString('base64url') : undefined);
  if (adminToken) {
    privateListener.mount(ADMIN_PREFIX, createAdminApi(storeAdmin(keyStore, config.plans, (ids) => verifier.forget?.(ids)), adminToken), { onPublic: config.admin.publicListener });
  }
  const privateUrl = await privateListener.listen();
  const removeAdminFile = localAdmin && privateUrl && adminToken ? writeAdminFile(config.keys.dataDir, { url: privateUrl, token: adminToken }) : undefined;
  server.on('request', (req, res) => {
    if (!privateListener.servePublic(req, res)) edge.handle(req, res);
  });
  server.on('upgrade', edge.upgrade);
  logger.info({ url: selfUrl, privateUrl, sandbox: config.sandbox.enabled }, 'gateway listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      removeAdminFile?.();
      server.close();
      await edge.drain(config.server.shutdownGraceMs);
      server.closeAllConnections();
      await privateListener.close();
      await edge.closeSockets();
      await Promise.all([...new Set(Object.values(handlers))].map((h) => h.close?.()));
      await backends.close();
      await hbar.close();
      untrackFilters();
      await filters.close();
      await local?.close();
      if (!opts.limiter) await limiter.close();
      if (!opts.keyStore) await keyStore.close();
      logger.info('gateway stopped');
    })());

  const adminUrl = adminToken && privateUrl ? `${privateUrl}${ADMIN_PREFIX}` : undefined;
  return { config, url: selfUrl, port, urls, privateUrl, adminUrl, router, keyStore, limiter, demoKey, local, close };
}

/** The ledger relay's writes go to consensus nodes and are budgeted; an EVM network's only if the operator set one. */
function writeBudgetOf(network: NetworkRef, config: Config): WriteBudget | undefined {
  if (network.chain.kind === 'ledger') return { scope: 'ledger', perSecond: config.limits.writesPerSecond };
  const perSecond = network.network.writesPerSecond;
  return perSecond === undefined ? undefined : { scope: network.id, perSecond };
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
  private readonly feeds = new Map<string, Promise<NetworkFeed>>();

  constructor(
    private readonly config: Config,
    private readonly upstreams: UpstreamResolver,
    private readonly local: LocalUpstreams | undefined,
    private readonly logger: Logger,
    private readonly filters: FilterService,
    private readonly hbar: HbarBudgets,
    private readonly shared: SharedLive | undefined,
    private readonly caches: SharedCaches | undefined,
    private readonly submissions: SharedSubmissions | undefined,
  ) {}

  /** The network's one follower for eth_subscribe, reading the chain as its filters do. */
  feed(network: NetworkRef): Promise<NetworkFeed> {
    return startOnce(this.feeds, network.id, async () => {
      const relay = network.chain.kind === 'ledger' ? await this.relay(network) : undefined;
      const source = relay ? rpcSource(backendCaller(relay, { network, requestId: 'live-feed' })) : this.evmBackend(network).backend.source;
      const { wsUpstreams } = network.network;
      return new NetworkFeed({
        network: network.id,
        source,
        // The ledger's subscriptions behave as the official relay's (whole blocks, contracts by either address).
        wholeBlocks: relay !== undefined,
        logAddresses: relay && ((addresses) => relay.logAddresses(addresses)),
        pollMs: this.config.live.pollIntervalMs,
        heads: wsUpstreams.length > 0 ? new UpstreamHeads(wsUpstreams, this.config.server.upstreamTimeoutMs, this.logger) : undefined,
        shared: this.shared?.network(network.id),
        logger: this.logger,
      });
    });
  }

  /** The network's backend: an EVM forwarder as it is, not behind a promise (every forwarded request asks); the ledger relay once made. */
  for(network: NetworkRef): RpcBackend | Promise<RpcBackend> {
    return network.chain.kind === 'ledger' ? this.relay(network) : this.evmForwarder(network);
  }

  /** An EVM network's forwarder, for what other APIs hold to its JSON-RPC bounds. */
  evmForwarder(network: NetworkRef): EvmForwarder {
    return this.evmBackend(network).backend;
  }

  private evmBackend(network: NetworkRef) {
    let entry = this.evm.get(network.id);
    if (!entry) {
      const pool = new UpstreamPool({
        networkId: network.id,
        chainId: network.network.chainId,
        urls: async () => (await this.upstreams(network)).rpc,
        timeoutMs: this.config.server.upstreamTimeoutMs,
        connections: this.config.server.upstreamConnections,
        health: this.config.upstreamHealth,
        logger: this.logger,
      });
      entry = {
        pool,
        backend: new EvmForwarder(
          network.network.chainId,
          pool,
          new MethodPolicy(network.id, this.config.rpcPolicy, network.network),
          logLimits(this.config.rpcPolicy, network.network),
          { defaultMs: this.config.relay.sendSyncDefaultMs, maxMs: this.config.relay.sendSyncMaxMs },
          { service: this.filters, network: network.id },
        ),
      };
      this.evm.set(network.id, entry);
    }
    return entry;
  }

  private relay(network: NetworkRef): Promise<LedgerRelay> {
    return startOnce(this.relays, network.id, async () => {
      const ledger = await this.ledgerConfig(network);
      return instrumentRelay(network.id, createLedgerRelay({
          network: network.id,
          chainId: network.network.chainId,
          ledger,
          relay: this.config.relay,
          logger: this.logger,
          filters: this.filters,
          hbar: this.hbar,
          sharedCache: this.caches?.network(network.id, ledger.mirrorUrl),
          pendingPool: this.submissions?.pool(network.id, ledger.mirrorUrl),
          senders: this.submissions?.senders(network.id, ledger.mirrorUrl),
        }));
    });
  }

  private async ledgerConfig(network: NetworkRef): Promise<LedgerConfig> {
    if (network.network.ledger) return network.network.ledger;
    if (this.local) return this.local.ledgerConfig(network);
    throw new GatewayError('UPSTREAM_NOT_CONFIGURED', network.id);
  }

  /** At start-up, in the background, every configured EVM upstream's chain id is checked; requests wait for it. */
  checkConfiguredUpstreams(networks: NetworkRef[]): void {
    for (const n of networks) if (n.chain.kind === 'evm' && configuredUpstreams(n)) void this.evmBackend(n).pool.start().catch(() => undefined);
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
    for (const feed of this.feeds.values()) (await feed.catch(() => undefined))?.close();
    await Promise.all([...this.evm.values()].map((e) => e.pool.close()));
    await Promise.all([...this.relays.values()].map(async (r) => (await r.catch(() => undefined))?.close()));
    await Promise.all([this.shared?.close(), this.caches?.close(), this.submissions?.close()]);
  }
}
