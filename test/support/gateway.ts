import { startGateway, type Gateway } from '../../src/app.js';
import { defaultChains } from '../../src/config/catalogue.js';
import { loadConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import type { KeyFlag } from '../../src/keys/store.js';
import { KEYLESS_FOR_TESTS, REFUSALS_FOR_TESTS } from './edge.js';
import { sharedMemoryStore } from './keyStores.js';

export interface TestGateway {
  gw: Gateway;
  /** A key on the enterprise plan with every flag, for tests that are not about plans. */
  key: string;
  newKey(plan?: string, flags?: KeyFlag[]): Promise<{ key: string; id: string }>;
  close(): Promise<void>;
}

/**
 * A real gateway on a free loopback port: sandbox upstreams (ledger blocks mined per transaction), an in-memory
 * key store, in-memory limits and silent logs, unless the overrides say otherwise.
 */
export async function startTestGateway(overrides: Partial<ConfigInput> = {}, gatewayOpts: Parameters<typeof startGateway>[1] = {}): Promise<TestGateway> {
  const config = loadConfig({
    env: {},
    overrides: {
      ...overrides,
      server: { port: 0, ...REFUSALS_FOR_TESTS, ...overrides.server },
      keys: { dataDir: 'memory://', demoKey: false, ...overrides.keys },
      limits: { ...KEYLESS_FOR_TESTS, ...overrides.limits },
      // No starting history unless a test asks for it: suites count blocks, nonces and balances from a clean start.
      sandbox: { enabled: true, blockIntervalMs: 0, history: false, ...overrides.sandbox },
      log: { level: 'silent', ...overrides.log },
    },
  });
  // A test with its own plans or store settings gets its own store; the others share one.
  const keyStore = overrides.keys || overrides.plans ? undefined : await sharedMemoryStore();
  const gw = await startGateway(config, { keyStore, ...gatewayOpts });
  const newKey = async (plan = 'enterprise', flags: KeyFlag[] = ['relay_beta', 'heavy_writes']) => {
    const account = await gw.keyStore.createAccount({ name: `test-${plan}` });
    const created = await gw.keyStore.createKey({ accountId: account.id, name: 'test', plan, flags });
    return { key: created.key, id: created.record.id };
  };
  const { key } = await newKey();
  return { gw, key, newKey, close: () => gw.close() };
}

/** The catalogue's chains with one ledger (hedera) network added or replaced, for gateways in front of given upstreams. */
export function withLedgerNetwork(name: string, network: NonNullable<ConfigInput['chains']>[string]['networks'][string]): ConfigInput['chains'] {
  const { hedera } = defaultChains();
  return { hedera: { ...hedera, networks: { ...hedera.networks, [name]: network } } };
}

/** POSTs a JSON-RPC body (string or value) and returns status, headers and parsed body. */
export async function rpc(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}
