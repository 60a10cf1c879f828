import { z } from 'zod';
import { MAX_BLOCKS_PER_POLL } from '../live/pollSize.js';

/** Every API a network can offer; `rpc` is everywhere. */
export const API_KINDS = ['rpc', 'rest', 'graphql', 'beta-graphql'] as const;
export type NetworkApi = (typeof API_KINDS)[number];

/** APIs a plan can include: the network APIs plus the MCP endpoint. */
export const PLAN_APIS = [...API_KINDS, 'mcp'] as const;
export type PlanApi = (typeof PLAN_APIS)[number];

const url = z.string().url();

/**
 * Never forwarded by default: node administration and node-held keys (an operator's own node would hand them to
 * every key holder), consensus-client and miner controls, and dev-node namespaces that rewrite state.
 */
export const CLOSED_BY_DEFAULT = [
  'admin_*',
  'personal_*',
  'miner_*',
  'engine_*',
  'clique_*',
  'txpool_*',
  'hardhat_*',
  'evm_*',
  'anvil_*',
  'ganache_*',
  'debug_set*',
  'eth_sign',
  'eth_signTransaction',
  'eth_signTypedData*',
  'eth_sendTransaction',
] as const;

/**
 * A mirror node's base URL. The gateway adds `/api/v1` to every path, but mirror nodes (and `npm run sandbox`) print
 * their REST URL with it: given either way, the config keeps the base.
 */
const mirrorBase = url.transform((u) => u.replace(/\/+$/, '').replace(/\/api\/v1$/, ''));

const ledgerSchema = z.object({
  mirrorUrl: mirrorBase.describe('Mirror node REST base URL, with or without its /api/v1 suffix'),
  mirrorCallUrl: mirrorBase.optional().describe('Separate base URL for POST /api/v1/contracts/call, if the operator splits them (with or without /api/v1)'),
  mirrorApiKey: z.string().optional().describe('Credential the gateway adds to mirror-node requests (sent as x-api-key)'),
  consensus: z
    .union([z.enum(['mainnet', 'testnet', 'previewnet']), z.record(z.string(), z.string())])
    .describe('Consensus network: a name, or a node map such as {"127.0.0.1:50211":"0.0.3"}'),
  operatorId: z.string().optional().describe('Account that pays submission fees (env OPERATOR_ID_<NETWORK>)'),
  // Checked here for shape, so a mistyped key is reported at start: the SDK that parses it is loaded on the first write.
  operatorKey: z
    .string()
    .regex(/^\s*(0x)?([0-9a-fA-F]{64}|30[0-9a-fA-F]{64,})\s*$/, 'a DER-encoded private key in hex, or a 32-byte hex ECDSA key')
    .optional()
    .describe('Private key of the operator account (env OPERATOR_KEY_<NETWORK>); never logged'),
  graphqlUrl: url.optional().describe('Upstream GraphQL endpoint over ledger data'),
  maxGas: z.number().int().positive().default(15_000_000).describe('Highest gas limit a transaction may ask for'),
  maxFeeTinybar: z.number().int().positive().default(2_000_000_000).describe('Highest fee the operator pays for one submission'),
  jumboTransactions: z
    .boolean()
    .default(true)
    .describe(
      'Send call data of up to 128 KiB inside the EthereumTransaction (HIP-1086, as the official relay\'s JUMBO_TX_ENABLED); false uploads call data above 5 KiB to the file service first, for networks without jumbo transactions. A node that answers TRANSACTION_OVERSIZE gets the file-service path either way',
    ),
});
export type LedgerConfig = z.infer<typeof ledgerSchema>;

/** `eth_call` (one method) or `hardhat_*` (every method starting `hardhat_`). */
const methodPattern = z.string().regex(/^[A-Za-z0-9_]+\*?$/, 'a method name, or a prefix ending in * (hardhat_*, debug_set*)');

const networkMethodsSchema = z
  .object({
    open: z.array(methodPattern).default([]).describe('Methods or namespaces forwarded on this network besides rpcPolicy.forwarded (for example ["txpool_*"])'),
    close: z.array(methodPattern).default([]).describe('Methods or namespaces answered -32601 on this network even if rpcPolicy.forwarded opens them'),
  })
  .prefault({});

const networkSchema = z.object({
  chainId: z.number().int().positive().describe('EIP-155 chain id the network answers eth_chainId with'),
  upstreams: z.array(url).default([]).describe('JSON-RPC upstream URLs (EVM chains), healthiest first; the order given breaks ties'),
  wsUpstreams: z
    .array(z.string().regex(/^wss?:\/\//, 'a ws:// or wss:// URL'))
    .default([])
    .describe('WebSocket JSON-RPC upstreams (EVM chains): their newHeads subscription tells the gateway a block arrived, so subscriptions need no head polling'),
  methods: networkMethodsSchema.describe('Method policy of this network (EVM chains): the most specific pattern wins, this network over rpcPolicy'),
  logBlocksPerRequest: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "Widest block span one eth_getLogs request to this EVM network's upstreams covers (the provider's cap); wider queries are split. Absent: rpcPolicy.maxLogBlocks. An upstream's error naming a narrower cap narrows it while the gateway runs",
    ),
  writesPerSecond: z
    .number()
    .positive()
    .optional()
    .describe('eth_sendRawTransaction budget per key on this EVM network; absent means a write costs what any request costs'),
  apis: z.array(z.enum(API_KINDS)).min(1).default(['rpc']).describe('APIs this network serves; rpc is required'),
  ledger: ledgerSchema.optional().describe('Ledger-chain upstreams (only on the ledger chain)'),
  graphqlUrl: url.optional().describe('Upstream for the beta GraphQL (EVM chains)'),
});
export type NetworkConfig = z.infer<typeof networkSchema>;

const chainSchema = z.object({
  kind: z.enum(['evm', 'ledger']).default('evm').describe('evm chains forward /rpc upstream; the ledger chain is answered by the relay'),
  displayName: z.string().describe('Human-readable chain name (MCP tools, key page)'),
  // Any non-empty set: a chain served only on a test network is routed as <chain>-<network> like any other.
  networks: z
    .record(z.string().regex(/^[a-z0-9]+$/, 'network names are lower-case letters and digits'), networkSchema)
    .refine((n) => Object.keys(n).length > 0, 'a chain needs at least one network'),
});
export type ChainConfig = z.infer<typeof chainSchema>;

const planSchema = z.object({
  requestsPerSecond: z.number().positive().describe('Budget shared by all networks and APIs of a key'),
  monthlyQuota: z.number().int().positive().describe('Requests per calendar month (UTC)'),
  apis: z.array(z.enum(PLAN_APIS)).min(1).describe('APIs the plan includes; others answer 403'),
  maxGraphqlDepth: z.number().int().positive().optional().describe('Deepest GraphQL query allowed; server.graphqlMaxDepth when absent, and never above it'),
  maxGraphqlBytes: z.number().int().positive().optional().describe('Largest GraphQL query text; server.graphqlMaxBytes when absent, and never above it'),
  maxGraphqlCost: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Highest GraphQL query cost allowed (see server.graphqlMaxCost); server.graphqlMaxCost when absent, and never above it'),
  maxSubscriptions: z
    .number()
    .int()
    .positive()
    .default(20)
    .describe('GraphQL subscriptions a key may have running at once on one gateway instance, across its connections; also the most GraphQL WebSockets it may hold open'),
  maxFilters: z.number().int().positive().default(100).describe('JSON-RPC filters (eth_new*Filter) a key may hold at once, across networks and instances'),
  maxSockets: z.number().int().positive().default(20).describe('JSON-RPC WebSockets a key may hold open on one gateway instance'),
  maxSubscriptionsPerSocket: z.number().int().positive().default(100).describe('eth_subscribe subscriptions one JSON-RPC WebSocket may hold'),
  hbarPerKeyTinybar: z
    .number()
    .int()
    .positive()
    .default(5_000_000_000)
    .describe(
      'Hbar (in tinybar) the operator may pay per hbarLimits window for the ledger writes of one key of this plan, on each ledger network; a key can have its own (admin API PUT /admin/v1/keys/{id}/hbar-limit)',
    ),
  hbarPerPlanTinybar: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Hbar (in tinybar) the operator may pay per hbarLimits window for the ledger writes of all keys of this plan together, on each ledger network; no such budget when absent'),
  maxLogBlocks: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "Widest block span one eth_getLogs of this plan's keys may cover; the gateway splits it into as many upstream requests (EVM) or mirror-node pages (ledger) as it takes, each charged as one request. Absent: rpcPolicy.maxLogBlocks on EVM networks, relay.maxLogBlocks on the ledger",
    ),
  debugMethods: z
    .boolean()
    .default(false)
    .describe(
      'Whether the debug_ and trace_ JSON-RPC namespaces are open (forwarded on EVM chains, traced by the ledger relay); other keys get -32003 per such call',
    ),
});
export type PlanConfig = z.infer<typeof planSchema>;

/** The official relay's BATCH_REQUESTS_DISALLOWED_METHODS default: the debug tracers and the filter methods. */
export const OFFICIAL_BATCH_DISALLOWED_METHODS = [
  'debug_traceTransaction',
  'debug_traceBlockByNumber',
  'eth_newFilter',
  'eth_uninstallFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
];

export const configSchema = z.object({
  server: z
    .object({
      port: z.number().int().min(0).max(65535).default(8080).describe('Listening port (env PORT)'),
      host: z.string().default('127.0.0.1').describe('Listening address (env HOST); loopback unless configured'),
      serviceDomain: z.string().default('localhost').describe('Domain under which {chain}[-{network}] hosts live (env SERVICE_DOMAIN)'),
      legacyDomains: z
        .array(z.string())
        .default(['hgraph.io', 'hgraph.dev'])
        .describe('Legacy domain suffixes of the ledger hosts {mainnet|testnet}.hedera.api.<suffix>'),
      appUrl: url.optional().describe('Public URL of the app host (key page); derived from the service domain when absent (env APP_URL)'),
      bodyLimitBytes: z.number().int().positive().default(5 * 1024 * 1024).describe('Largest request body'),
      keylessBodyLimitBytes: z
        .number()
        .int()
        .positive()
        .default(16 * 1024)
        .describe('Largest body of a request without an API key (MCP without a key, the key and usage forms): such a body is read before anyone is known'),
      keylessBodyTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(10_000)
        .describe('How long the body of a request without an API key may take to arrive; a slower one is answered 408'),
      headersTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(10_000)
        .describe('How long a client may take to send a request\'s headers; a slower one is answered 408 and its connection closed'),
      requestTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(30_000)
        .describe('How long a client may take to send a whole request, headers and body (at least headersTimeoutMs); a slower one is answered 408'),
      keepAliveTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(65_000)
        .describe('How long an idle keep-alive connection stays open; above the 60 s idle timeout of common load balancers, so they close first and never reuse a connection the gateway is closing'),
      maxConnectionsPerClient: z
        .number()
        .int()
        .min(0)
        .default(256)
        .describe(
          'Open TCP connections one remote address may hold on the public listener (0: no bound); more are held (refusalDelayMs), then answered 429 and closed. Counted by connection address, so not applied when server.clientIpHeader names a trusted proxy (every connection is then the proxy\'s): bound connections per client at the proxy',
        ),
      maxBatchSize: z.number().int().positive().default(1000).describe('Most calls in one JSON-RPC batch'),
      refusalDelayMs: z
        .number()
        .int()
        .min(0)
        .default(1_000)
        .describe(
          'How long a refusal for a spent budget (429, with a key or without, a WebSocket handshake\'s included) is held, its connection unread, before it is written; a handshake past its address\'s waiting sockets is held wsAuthTimeoutMs and a connection past maxConnectionsPerClient headersTimeoutMs, if longer (0: every refusal at once). A client that retries at once then makes one attempt per connection per delay, not thousands a second',
        ),
      maxDelayedRefusals: z
        .number()
        .int()
        .min(0)
        .default(4_096)
        .describe('Refusals held at once (each holds a connection open, so mind the file descriptor limit); past this they are written at once'),
      upstreamTimeoutMs: z.number().int().positive().default(10_000).describe('Timeout of one upstream attempt'),
      upstreamConnections: z
        .number()
        .int()
        .positive()
        .default(256)
        .describe(
          'Most keep-alive connections to one EVM upstream: each call in flight holds one, so size it to requests per second times the upstream latency (1,000/s at 100 ms holds 100); calls beyond it wait for a free one',
        ),
      shutdownGraceMs: z.number().int().positive().default(10_000).describe('How long SIGTERM waits for in-flight work'),
      subscriptionIdleTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(300_000)
        .describe('Close WebSockets (GraphQL and JSON-RPC) with no client message, no request being answered and no running subscription for this long'),
      graphqlMaxDepth: z
        .number()
        .int()
        .positive()
        .default(20)
        .describe('Deepest GraphQL query on any plan: the bound of plans without maxGraphqlDepth, and a cap on those with one'),
      graphqlMaxBytes: z
        .number()
        .int()
        .positive()
        .default(65_536)
        .describe('Largest GraphQL query text on any plan: the bound of plans without maxGraphqlBytes, and a cap on those with one'),
      graphqlMaxCost: z
        .number()
        .int()
        .positive()
        .default(1_000_000)
        .describe(
          'Highest GraphQL query cost on any plan: the bound of plans without maxGraphqlCost, and a cap on those with one. A query costs one per field, times the list sizes around it (limit, first or last; 5 for a field that selects fields and has none)',
        ),
      graphqlCostPerRequest: z
        .number()
        .int()
        .positive()
        .default(1_000)
        .describe('GraphQL query cost charged as one request: a query (or subscription start) is charged ceil(cost / this) requests, at least one'),
      wsMaxPayloadBytes: z.number().int().positive().default(1024 * 1024).describe('Largest WebSocket message a client may send'),
      wsMaxUnauthenticated: z
        .number()
        .int()
        .positive()
        .default(1_000)
        .describe('WebSockets that may be open before authenticating, per instance; further handshakes are refused with 503'),
      wsMaxUnauthenticatedPerClient: z
        .number()
        .int()
        .positive()
        .default(16)
        .describe(
          'WebSockets one client address may have open before authenticating, per instance; further handshakes are refused with 429. The last quarter of wsMaxUnauthenticated is kept for addresses that have none waiting',
        ),
      wsAuthTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(3_000)
        .describe(
          "How long a WebSocket may stay open without authenticating, and a GraphQL one without sending connection_init (graphql-ws servers' own default); short, so that waiting sockets cannot hold the slots others need",
        ),
      clientIpHeader: z
        .string()
        .toLowerCase()
        .optional()
        .describe(
          'Header a trusted proxy in front sets to the client address (x-forwarded-for: its right-most entry; x-real-ip); unset, the connection address is used and forwarded headers are ignored',
        ),
      wsPingIntervalMs: z
        .number()
        .int()
        .positive()
        .default(30_000)
        .describe('How often JSON-RPC WebSockets are pinged; one that has not answered the previous ping is cut off'),
      wsMaxBufferedBytes: z
        .number()
        .int()
        .positive()
        .default(4 * 1024 * 1024)
        .describe(
          'Bytes a WebSocket (JSON-RPC or GraphQL) may have waiting to be sent, and a GraphQL socket waiting for its upstream to open; a slower reader is closed with code 4008',
        ),
    })
    .refine((s) => s.headersTimeoutMs <= s.requestTimeoutMs, { message: 'headersTimeoutMs may not exceed requestTimeoutMs', path: ['headersTimeoutMs'] })
    .prefault({}),
  chains: z.record(z.string().regex(/^[a-z0-9]+$/, 'chain names are lower-case letters and digits'), chainSchema),
  plans: z.record(z.string(), planSchema),
  private: z
    .object({
      host: z
        .string()
        .default('127.0.0.1')
        .describe('Address of the private listener, which serves /metrics, the /readyz detail and the admin API (env PRIVATE_HOST); loopback unless configured'),
      port: z
        .number()
        .int()
        .min(0)
        .max(65535)
        .optional()
        .describe('Port of the private listener (env PRIVATE_PORT); server.port + 1 when absent, a free port when server.port is 0'),
    })
    .prefault({}),
  admin: z
    .object({
      token: z
        .string()
        .min(16, 'the admin token must be at least 16 characters')
        .optional()
        .describe(
          'Operator token of the admin API /admin/v1 (env ADMIN_TOKEN); never logged. Without one the API is off, except on the embedded store, where each start makes a token for the local keys CLI',
        ),
      publicListener: z.boolean().default(false).describe('Also serve /admin/v1 on the public listener (the token is still required)'),
    })
    .prefault({}),
  ops: z
    .object({
      token: z
        .string()
        .min(16, 'the ops token must be at least 16 characters')
        .optional()
        .describe(
          'Operator token (env OPS_TOKEN; never logged) that opens /metrics and the /readyz detail on the public listener as Authorization: Bearer <token>. Without one they are served on the private listener only',
        ),
    })
    .prefault({}),
  keys: z
    .object({
      databaseUrl: z.string().optional().describe('Postgres URL of the key store (env DATABASE_URL); embedded store when absent'),
      dataDir: z.string().default('.data').describe('Directory of the embedded store (env DATA_DIR)'),
      cacheTtlMs: z.number().int().positive().default(10_000).describe('How long a verified key is trusted without the store; bounds revocation'),
      negativeTtlMs: z.number().int().positive().default(2_000).describe('How long an unknown key is remembered as unknown'),
      cacheMax: z.number().int().positive().default(100_000).describe('Most verified keys held in memory'),
      demoKey: z.boolean().default(true).describe('Create and print a demo key at start (embedded store only)'),
      selfService: z.enum(['open', 'closed']).default('open').describe('Whether the key page (/keys/new) creates keys (env KEYS_SELF_SERVICE)'),
      creationWindowMs: z.number().int().positive().default(3_600_000).describe('Window of the key-creation budgets'),
      creationsPerClient: z.number().int().positive().default(5).describe('Keys one client address may create on the key page per window'),
      creationsPerWindow: z
        .number()
        .int()
        .positive()
        .default(200)
        .describe('Keys the key page may create per window in all (per instance; the per-client budget is per instance too)'),
      maxPerAccount: z.number().int().positive().default(10).describe('Active keys one account (or one email address on the key page) may hold'),
    })
    .prefault({}),
  limits: z
    .object({
      redisUrl: z.string().optional().describe('Redis URL shared by all instances (env REDIS_URL); in-memory when absent'),
      redisFailure: z.enum(['fail-open', 'fail-closed']).default('fail-open').describe('What to do while Redis is unreachable'),
      relayPhase: z.enum(['beta', 'ga']).default('ga').describe('Who may use the ledger /rpc: relay_beta keys, or paid plans'),
      relayPlans: z.array(z.string()).default(['developer', 'startup', 'premium', 'enterprise']).describe('Plans that include the ledger /rpc when relayPhase is ga'),
      keylessPerSecond: z
        .number()
        .positive()
        .default(10)
        .describe(
          'Requests without an API key one client address may make per second, a second\'s worth at once (MCP without a key, each message of a batch counting one; the key and usage pages; WebSocket handshakes that authenticate later); per instance, answered 429 beyond it',
        ),
      writesPerSecond: z
        .number()
        .positive()
        .default(2)
        .describe('eth_sendRawTransaction budget per key on the ledger relay, whose writes go to consensus nodes (EVM networks: chains.<chain>.networks.<network>.writesPerSecond)'),
      quotaFlushMs: z.number().int().positive().default(1_000).describe('How often usage counts are persisted'),
      usageHistoryDays: z
        .number()
        .int()
        .positive()
        .default(40)
        .describe("How long hourly usage (the key owner's usage report) is kept; month counts are kept for good"),
    })
    .prefault({}),
  hbarLimits: z
    .object({
      windowMs: z
        .number()
        .int()
        .positive()
        .default(86_400_000)
        .describe('Length of the hbar spending window (env HBAR_RATE_LIMIT_DURATION, as the official relay names it); windows start at multiples of it since the epoch, so every instance agrees when one resets'),
      operatorTinybar: z
        .number()
        .int()
        .positive()
        .default(5_000_000_000_000)
        .describe('Hbar (in tinybar) the operator account of each ledger network may pay per window for all writes the relay submits (env HBAR_RATE_LIMIT_TINYBAR)'),
      outageInFlight: z
        .number()
        .int()
        .positive()
        .default(4)
        .describe(
          'Writes one instance may have in flight while Redis is unreachable: spend is then judged from the key store plus this instance\'s own reservations, and this bounds what other instances may add unseen',
        ),
    })
    .prefault({})
    .describe('Hbar spending limits: every ledger write reserves its largest possible fee against the operator, plan and key budgets before it is submitted'),
  sandbox: z
    .object({
      enabled: z.boolean().default(false).describe('Serve networks without upstreams from local stand-ins'),
      blockIntervalMs: z
        .number()
        .int()
        .min(0)
        .default(2_000)
        .describe('Sandbox block time: the ledger closes a record file this often (0: on every transaction); the EVM devnets, which mine each transaction at once, also mine an empty block this often (0: never)'),
      jumboTransactions: z
        .boolean()
        .default(true)
        .describe(
          'Whether the ledger sandbox\'s consensus node takes EthereumTransactions above 6 KiB (HIP-1086, up to 130 KiB); false answers them TRANSACTION_OVERSIZE, as a network without jumbo transactions does, and gives the relay ledger.jumboTransactions false for it',
        ),
      history: z
        .boolean()
        .default(true)
        .describe(
          'Build a starting history when a sandbox starts: on the ledger accounts, HBAR transfers, an HTS token and its transfer, an ERC-20 with Transfer events and a reverted call; on EVM devnets the same ERC-20',
        ),
    })
    .prefault({}),
  live: z
    .object({
      pollIntervalMs: z
        .number()
        .int()
        .positive()
        .default(1_000)
        .describe('How often a network with eth_subscribe subscribers asks its upstream for a new block (one poller per network)'),
      filterTimeoutMs: z.number().int().positive().default(300_000).describe('A filter not polled for this long is removed, as in geth'),
      leaseMs: z
        .number()
        .int()
        .min(300)
        .default(2_500)
        .describe(
          'With limits.redisUrl, one instance follows each network for all of them, under a Redis lease of this length; when it dies another takes over within about this long',
        ),
    })
    .prefault({}),
  relay: z
    .object({
      latestCacheMs: z.number().int().min(0).default(500).describe('How long `latest` answers may be reused'),
      // 48 MB: with it full under load the gateway stays under 250 MB resident (64 MB peaked at 207-257 MB).
      cacheBytes: z.number().int().positive().default(48 * 1024 * 1024).describe('Byte bound of the final-data cache'),
      sharedCacheBytes: z
        .number()
        .int()
        .min(0)
        .default(64 * 1024 * 1024)
        .describe(
          "With limits.redisUrl, byte bound of each ledger network's final answers (blocks, transactions, receipts, logs of final blocks) shared by all instances through Redis, behind each instance's own cache; counted by the gateway, independent of Redis's maxmemory. 0 shares nothing",
        ),
      sharedCacheTtlMs: z.number().int().min(1_000).default(600_000).describe('How long a shared final answer lives in Redis; a bound spent early frees up within this long'),
      sharedCacheMaxEntryBytes: z.number().int().positive().default(1024 * 1024).describe('A final answer larger than this is not shared (each instance keeps its own)'),
      // The official relay's ETH_GET_LOGS_BLOCK_RANGE_LIMIT default, and its comparison: toBlock - fromBlock past it is refused.
      maxLogBlocks: z
        .number()
        .int()
        .positive()
        .default(1_000)
        .describe('Widest eth_getLogs range (toBlock - fromBlock) on the ledger for keys whose plan sets no maxLogBlocks; past it -32000 "Exceeded maximum block range: N", as the official relay answers'),
      mirrorTimeoutMs: z.number().int().positive().default(5_000).describe('Timeout of one mirror-node request'),
      mirrorRetries: z.number().int().min(0).default(2).describe('Retries of a failed mirror-node lookup'),
      mirrorTotalMs: z.number().int().positive().default(15_000).describe('Bound on all attempts of one mirror-node lookup'),
      // Each address is one mirror-node lookup when the subscription starts (then matched in-process). The official
      // relay takes one by default (WS_MULTIPLE_ADDRESSES_ENABLED false) and at most 1000 when enabled.
      subscriptionMaxAddresses: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .default(20)
        .describe(
          "Addresses one eth_subscribe('logs') on the ledger may name, each looked up on the mirror node; more are refused with the official relay's -32602 (1 gives its default, 'Only one contract address is allowed')",
        ),
      // None by default: ethers v6 batches eth_newFilter with the calls of the same tick, so contract.on fails against
      // the official relay's list (OFFICIAL_BATCH_DISALLOWED_METHODS).
      batchDisallowedMethods: z
        .array(z.string().min(1))
        .default([])
        .describe(
          "Ledger methods refused inside a batch (-32007 'Method <name> is not permitted as part of batch requests'). The official relay refuses debug_traceTransaction, debug_traceBlockByNumber and the six filter methods (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter); that list breaks ethers v6 event listeners, which batch eth_newFilter with other calls",
        ),
      requestIdInErrors: z
        .boolean()
        .default(false)
        .describe(
          "Start each ledger relay error's message with `[Request ID: <id>] `, the request's X-Request-Id, as the official relay does (its acceptance suites match messages so)",
        ),
      httpErrorMapping: z
        .enum(['always-200', 'official'])
        .default('always-200')
        .describe(
          "HTTP status of the ledger relay's JSON-RPC errors. always-200: every JSON-RPC error answers 200, so ethers v6 shows its code and message. official: the official hiero relay's mapping (400 for request, params and method errors, 200 for reverts, 429 for limits, 500 for internal and mirror-node failures; a batch answers 200)",
        ),
      onValidRequestErrorStatus: z
        .number()
        .int()
        .min(200)
        .max(599)
        .default(400)
        .describe(
          "With httpErrorMapping official: the status that replaces 400 for an error answered to a well-formed request (the official relay's ON_VALID_JSON_RPC_HTTP_RESPONSE_STATUS_CODE); parse errors and invalid requests keep 400",
        ),
      sendSyncDefaultMs: z
        .number()
        .int()
        .positive()
        .default(2_000)
        .describe('How long eth_sendRawTransactionSync (EIP-7966) waits for the receipt when the call names no timeout, or an invalid one (the ledger relay and EVM networks alike)'),
      sendSyncMaxMs: z
        .number()
        .int()
        .positive()
        .default(5_000)
        .describe(
          'Longest wait eth_sendRawTransactionSync may ask for; a longer timeout is cut to this. Keep it below server.upstreamTimeoutMs, which bounds a call forwarded to an EVM upstream',
        ),
    })
    .refine((r) => r.sendSyncDefaultMs <= r.sendSyncMaxMs, { message: 'sendSyncDefaultMs may not exceed sendSyncMaxMs', path: ['sendSyncDefaultMs'] })
    .prefault({}),
  rpcPolicy: z
    .object({
      forwarded: z
        .array(methodPattern)
        .default(['eth_*', 'net_*', 'web3_*', 'debug_*', 'trace_*'])
        .describe('Methods forwarded to EVM upstreams; debug_* and trace_* also need a plan with debugMethods. Anything matching no pattern answers -32601'),
      closed: z
        .array(methodPattern)
        .default([...CLOSED_BY_DEFAULT])
        .describe('Methods never forwarded unless a network opens them (node administration, node-held keys, dev-node controls); a longer pattern beats a shorter one'),
      // 10,000 is what public providers commonly allow; at least one poll's worth, so filters and subscriptions can follow the chain.
      maxLogBlocks: z
        .number()
        .int()
        .min(MAX_BLOCKS_PER_POLL)
        .default(10_000)
        .describe(
          'Widest block span of a log query on EVM networks: eth_getLogs of a key whose plan sets no maxLogBlocks, and every eth_newFilter and eth_getFilterLogs, spanning more are refused (-32000 Range too large). Tags count as the upstream head (earliest as block 0), a missing bound as latest. At least 100, the most blocks one filter or subscription poll reads. Also what one upstream request covers where the network sets no logBlocksPerRequest',
        ),
      logConcurrency: z.number().int().positive().max(64).default(4).describe('Upstream requests one split eth_getLogs runs at once'),
      maxLogBytes: z
        .number()
        .int()
        .positive()
        .default(32 * 1024 * 1024)
        .describe('Largest eth_getLogs answer on EVM networks (bytes of JSON, over all the upstream requests it was split into); past it the call is answered -32005 and the rest is not fetched'),
    })
    .prefault({})
    .describe('Which JSON-RPC methods EVM networks forward upstream, and how wide a log query may be'),
  upstreamHealth: z
    .object({
      maxHeadLagBlocks: z.number().int().min(0).default(5).describe('An upstream further behind the best head than this leaves rotation until it catches up'),
      failuresBeforeEjection: z.number().int().positive().default(3).describe('Consecutive failed attempts after which an upstream leaves rotation until a probe succeeds'),
      probeIntervalMs: z.number().int().positive().default(2_000).describe('How often each upstream is asked eth_blockNumber (head lag, recovery, latency of idle upstreams)'),
      hedge: z.boolean().default(true).describe('Send a read to the next upstream when the first is slower than it usually is; the first answer wins'),
      hedgeMinDelayMs: z.number().int().min(0).default(20).describe('Hedge no sooner than this, whatever the observed latency'),
    })
    .prefault({})
    .describe('Scoring, ejection and hedging of EVM upstreams'),
  log: z
    .object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Log level (env LOG_LEVEL)') })
    .prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
