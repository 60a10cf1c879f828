import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { configSchema, type Config, type ConfigInput } from './schema.js';
import { defaultChains, defaultPlans } from './catalogue.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** Env vars that override one setting each; the config reference is generated from this table too. */
export const ENV_OVERRIDES: Record<string, { path: string[]; type: 'string' | 'int' | 'bool' }> = {
  PORT: { path: ['server', 'port'], type: 'int' },
  HOST: { path: ['server', 'host'], type: 'string' },
  SERVICE_DOMAIN: { path: ['server', 'serviceDomain'], type: 'string' },
  APP_URL: { path: ['server', 'appUrl'], type: 'string' },
  BODY_LIMIT_BYTES: { path: ['server', 'bodyLimitBytes'], type: 'int' },
  MAX_BATCH_SIZE: { path: ['server', 'maxBatchSize'], type: 'int' },
  UPSTREAM_TIMEOUT_MS: { path: ['server', 'upstreamTimeoutMs'], type: 'int' },
  UPSTREAM_CONNECTIONS: { path: ['server', 'upstreamConnections'], type: 'int' },
  SHUTDOWN_GRACE_MS: { path: ['server', 'shutdownGraceMs'], type: 'int' },
  PRIVATE_HOST: { path: ['private', 'host'], type: 'string' },
  PRIVATE_PORT: { path: ['private', 'port'], type: 'int' },
  ADMIN_TOKEN: { path: ['admin', 'token'], type: 'string' },
  OPS_TOKEN: { path: ['ops', 'token'], type: 'string' },
  DATABASE_URL: { path: ['keys', 'databaseUrl'], type: 'string' },
  DATA_DIR: { path: ['keys', 'dataDir'], type: 'string' },
  KEY_CACHE_TTL_MS: { path: ['keys', 'cacheTtlMs'], type: 'int' },
  KEYS_SELF_SERVICE: { path: ['keys', 'selfService'], type: 'string' },
  REDIS_URL: { path: ['limits', 'redisUrl'], type: 'string' },
  REDIS_FAILURE: { path: ['limits', 'redisFailure'], type: 'string' },
  RELAY_PHASE: { path: ['limits', 'relayPhase'], type: 'string' },
  HBAR_RATE_LIMIT_DURATION: { path: ['hbarLimits', 'windowMs'], type: 'int' },
  HBAR_RATE_LIMIT_TINYBAR: { path: ['hbarLimits', 'operatorTinybar'], type: 'int' },
  SANDBOX: { path: ['sandbox', 'enabled'], type: 'bool' },
  SANDBOX_BLOCK_INTERVAL_MS: { path: ['sandbox', 'blockIntervalMs'], type: 'int' },
  SANDBOX_HISTORY: { path: ['sandbox', 'history'], type: 'bool' },
  LOG_LEVEL: { path: ['log', 'level'], type: 'string' },
};

function coerce(name: string, raw: string, type: 'string' | 'int' | 'bool'): unknown {
  if (type === 'string') return raw;
  if (type === 'bool') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    throw new ConfigError(`Invalid config: env ${name} must be true or false, got "${raw}"`);
  }
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`Invalid config: env ${name} must be an integer, got "${raw}"`);
  return Number(raw);
}

function setPath(target: Record<string, any>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = node[key] ??= {};
  node[path[path.length - 1]] = value;
}

/** Operator secrets come from env only: OPERATOR_ID_<CHAIN>_<NETWORK> and OPERATOR_KEY_<CHAIN>_<NETWORK>. */
function applyOperatorEnv(input: ConfigInput, env: Env): void {
  for (const [chainName, chain] of Object.entries(input.chains)) {
    for (const [networkName, network] of Object.entries(chain.networks)) {
      if (!network.ledger) continue;
      const suffix = `${chainName}_${networkName}`.toUpperCase();
      network.ledger.operatorId = env[`OPERATOR_ID_${suffix}`] ?? network.ledger.operatorId;
      network.ledger.operatorKey = env[`OPERATOR_KEY_${suffix}`] ?? network.ledger.operatorKey;
    }
  }
}

function readFile(path: string): ConfigInput {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`Cannot read config file ${path}: ${(err as Error).message}`);
  }
  try {
    return (path.endsWith('.json') ? JSON.parse(text) : yaml.load(text)) as ConfigInput;
  } catch (err) {
    throw new ConfigError(`Config file ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`);
  }
}

/**
 * Builds the config: embedded catalogue and plans, then the file (GATEWAY_CONFIG or the argument), then env.
 * Without a file the sandbox serves every network, so `npm start` needs nothing else.
 */
export function loadConfig(options: { file?: string; env?: Env; overrides?: Partial<ConfigInput> } = {}): Config {
  const env = options.env ?? process.env;
  const file = options.file ?? env.GATEWAY_CONFIG;
  const fromFile: Partial<ConfigInput> = file ? readFile(file) : {};
  const input: Record<string, any> = {
    chains: defaultChains(),
    plans: defaultPlans(),
    sandbox: { enabled: !file },
    ...fromFile,
    ...options.overrides,
  };
  for (const section of ['server', 'private', 'admin', 'ops', 'keys', 'limits', 'hbarLimits', 'sandbox', 'live', 'relay', 'log']) {
    input[section] = { ...(section === 'sandbox' ? { enabled: !file } : {}), ...fromFile[section as keyof ConfigInput] as object, ...options.overrides?.[section as keyof ConfigInput] as object };
  }
  for (const [name, { path, type }] of Object.entries(ENV_OVERRIDES)) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') setPath(input, path, coerce(name, raw, type));
  }
  applyOperatorEnv(input as ConfigInput, env);
  return validateConfig(input);
}

export function validateConfig(input: unknown): Config {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new ConfigError(`Invalid config:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  // Every plan has GraphQL bounds: its own, capped by the server's, or the server's.
  const { graphqlMaxDepth, graphqlMaxBytes, graphqlMaxCost } = config.server;
  for (const plan of Object.values(config.plans)) {
    plan.maxGraphqlDepth = Math.min(plan.maxGraphqlDepth ?? graphqlMaxDepth, graphqlMaxDepth);
    plan.maxGraphqlBytes = Math.min(plan.maxGraphqlBytes ?? graphqlMaxBytes, graphqlMaxBytes);
    plan.maxGraphqlCost = Math.min(plan.maxGraphqlCost ?? graphqlMaxCost, graphqlMaxCost);
  }
  for (const [chainName, chain] of Object.entries(config.chains)) {
    for (const [networkName, network] of Object.entries(chain.networks)) {
      const at = `chains.${chainName}.networks.${networkName}`;
      if (!network.apis.includes('rpc')) throw new ConfigError(`Invalid config:\n  - ${at}.apis: every network offers rpc`);
      if (chain.kind === 'ledger' && !network.ledger && !config.sandbox.enabled) {
        throw new ConfigError(`Invalid config:\n  - ${at}.ledger: a ledger network needs mirrorUrl and consensus (or sandbox.enabled)`);
      }
      if (chain.kind === 'evm' && network.upstreams.length === 0 && !config.sandbox.enabled) {
        throw new ConfigError(`Invalid config:\n  - ${at}.upstreams: an EVM network needs at least one upstream URL (or sandbox.enabled)`);
      }
    }
  }
  return config;
}

/** The ids a network is addressed by: `ethereum` for mainnet, `ethereum-sepolia` otherwise. */
export function networkId(chain: string, network: string): string {
  return network === 'mainnet' ? chain : `${chain}-${network}`;
}
