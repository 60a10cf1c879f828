import { z } from 'zod';

/** Every API a network can offer; `rpc` is everywhere. */
export const API_KINDS = ['rpc', 'rest', 'graphql', 'beta-graphql'] as const;
export type NetworkApi = (typeof API_KINDS)[number];

/** APIs a plan can include: the network APIs plus the MCP endpoint. */
export const PLAN_APIS = [...API_KINDS, 'mcp'] as const;
export type PlanApi = (typeof PLAN_APIS)[number];

const url = z.string().url();

const ledgerSchema = z.object({
  mirrorUrl: url.describe('Mirror node REST base URL (without /api/v1)'),
  mirrorCallUrl: url.optional().describe('Separate base URL for POST /api/v1/contracts/call, if the operator splits them'),
  mirrorApiKey: z.string().optional().describe('Credential the gateway adds to mirror-node requests (sent as x-api-key)'),
  consensus: z
    .union([z.enum(['mainnet', 'testnet', 'previewnet']), z.record(z.string(), z.string())])
    .describe('Consensus network: a name, or a node map such as {"127.0.0.1:50211":"0.0.3"}'),
  operatorId: z.string().optional().describe('Account that pays submission fees (env OPERATOR_ID_<NETWORK>)'),
  operatorKey: z.string().optional().describe('Private key of the operator account (env OPERATOR_KEY_<NETWORK>); never logged'),
  graphqlUrl: url.optional().describe('Upstream GraphQL endpoint over ledger data'),
  maxGas: z.number().int().positive().default(15_000_000).describe('Highest gas limit a transaction may ask for'),
  maxFeeTinybar: z.number().int().positive().default(2_000_000_000).describe('Highest fee the operator pays for one submission'),
});
export type LedgerConfig = z.infer<typeof ledgerSchema>;

const networkSchema = z.object({
  chainId: z.number().int().positive().describe('EIP-155 chain id the network answers eth_chainId with'),
  upstreams: z.array(url).default([]).describe('JSON-RPC upstream URLs in failover order (EVM chains)'),
  apis: z.array(z.enum(API_KINDS)).min(1).default(['rpc']).describe('APIs this network serves; rpc is required'),
  ledger: ledgerSchema.optional().describe('Ledger-chain upstreams (only on the ledger chain)'),
  graphqlUrl: url.optional().describe('Upstream for the beta GraphQL (EVM chains)'),
});
export type NetworkConfig = z.infer<typeof networkSchema>;

const chainSchema = z.object({
  kind: z.enum(['evm', 'ledger']).default('evm').describe('evm chains forward /rpc upstream; the ledger chain is answered by the relay'),
  displayName: z.string().describe('Human-readable chain name (MCP tools, key page)'),
  networks: z
    .record(z.string().regex(/^[a-z0-9]+$/, 'network names are lower-case letters and digits'), networkSchema)
    .refine((n) => 'mainnet' in n, 'every chain needs a mainnet network'),
});
export type ChainConfig = z.infer<typeof chainSchema>;

const planSchema = z.object({
  requestsPerSecond: z.number().positive().describe('Budget shared by all networks and APIs of a key'),
  monthlyQuota: z.number().int().positive().describe('Requests per calendar month (UTC)'),
  apis: z.array(z.enum(PLAN_APIS)).min(1).describe('APIs the plan includes; others answer 403'),
  maxGraphqlDepth: z.number().int().positive().optional().describe('Deepest GraphQL query allowed; unbounded when absent'),
  maxGraphqlBytes: z.number().int().positive().optional().describe('Largest GraphQL query text; unbounded when absent'),
  maxSubscriptions: z.number().int().positive().default(20).describe('GraphQL subscriptions a key may hold open'),
});
export type PlanConfig = z.infer<typeof planSchema>;

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
      maxBatchSize: z.number().int().positive().default(1000).describe('Most calls in one JSON-RPC batch'),
      upstreamTimeoutMs: z.number().int().positive().default(10_000).describe('Timeout of one upstream attempt'),
      shutdownGraceMs: z.number().int().positive().default(10_000).describe('How long SIGTERM waits for in-flight work'),
      subscriptionIdleTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(300_000)
        .describe('Close GraphQL WebSockets with no client message and no running subscription for this long'),
      trustProxy: z.boolean().default(false).describe('Take the client address from X-Forwarded-For'),
    })
    .prefault({}),
  chains: z.record(z.string().regex(/^[a-z0-9]+$/, 'chain names are lower-case letters and digits'), chainSchema),
  plans: z.record(z.string(), planSchema),
  keys: z
    .object({
      databaseUrl: z.string().optional().describe('Postgres URL of the key store (env DATABASE_URL); embedded store when absent'),
      dataDir: z.string().default('.data').describe('Directory of the embedded store (env DATA_DIR)'),
      cacheTtlMs: z.number().int().positive().default(10_000).describe('How long a verified key is trusted without the store; bounds revocation'),
      negativeTtlMs: z.number().int().positive().default(2_000).describe('How long an unknown key is remembered as unknown'),
      cacheMax: z.number().int().positive().default(100_000).describe('Most verified keys held in memory'),
      demoKey: z.boolean().default(true).describe('Create and print a demo key at start (embedded store only)'),
    })
    .prefault({}),
  limits: z
    .object({
      redisUrl: z.string().optional().describe('Redis URL shared by all instances (env REDIS_URL); in-memory when absent'),
      redisFailure: z.enum(['fail-open', 'fail-closed']).default('fail-open').describe('What to do while Redis is unreachable'),
      relayPhase: z.enum(['beta', 'ga']).default('ga').describe('Who may use the ledger /rpc: relay_beta keys, or paid plans'),
      relayPlans: z.array(z.string()).default(['developer', 'startup', 'premium', 'enterprise']).describe('Plans that include the ledger /rpc when relayPhase is ga'),
      writesPerSecond: z.number().positive().default(2).describe('eth_sendRawTransaction budget per key'),
      quotaFlushMs: z.number().int().positive().default(1_000).describe('How often usage counts are persisted'),
    })
    .prefault({}),
  sandbox: z
    .object({
      enabled: z.boolean().default(false).describe('Serve networks without upstreams from local stand-ins'),
      blockIntervalMs: z.number().int().min(0).default(2_000).describe('Ledger record-file interval; 0 mines on every transaction'),
    })
    .prefault({}),
  relay: z
    .object({
      latestCacheMs: z.number().int().min(0).default(500).describe('How long `latest` answers may be reused'),
      cacheBytes: z.number().int().positive().default(64 * 1024 * 1024).describe('Byte bound of the final-data cache'),
      mirrorTimeoutMs: z.number().int().positive().default(5_000).describe('Timeout of one mirror-node request'),
      mirrorRetries: z.number().int().min(0).default(2).describe('Retries of a failed mirror-node lookup'),
      mirrorTotalMs: z.number().int().positive().default(15_000).describe('Bound on all attempts of one mirror-node lookup'),
    })
    .prefault({}),
  log: z
    .object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Log level (env LOG_LEVEL)') })
    .prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
