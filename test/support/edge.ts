/**
 * API handlers behind the real edge (src/edge/edge.ts): the real router, key extraction, verifier over a real
 * in-memory key store, and the real in-memory limiter, on a node:http server on loopback. For handler suites that
 * bring their own upstreams; the full gateway tests go through src/app.ts (test/support/gateway.ts).
 */
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import type { Config, ConfigInput } from '../../src/config/schema.js';
import { Edge } from '../../src/edge/edge.js';
import { createPublicServer } from '../../src/edge/publicServer.js';
import { tarpitOf } from '../../src/edge/tarpit.js';
import { Router, type ApiKind } from '../../src/edge/route.js';
import type { ApiHandler } from '../../src/edge/types.js';
import type { KeyStore } from '../../src/keys/store.js';
import type { KeyVerifier, VerifiedKey } from '../../src/keys/types.js';
import { createKeyVerifier } from '../../src/keys/verifier.js';
import { createLimiter } from '../../src/limits/index.js';
import type { LimitDecision, Limiter } from '../../src/limits/types.js';
import { sharedMemoryStore } from './keyStores.js';

export interface TestEdge {
  url: string;
  config: Config;
  router: Router;
  store: KeyStore;
  verifier: KeyVerifier;
  /** Requests charged (allowed) per key id. */
  charged: Map<string, number>;
  /** Creates a key on `plan` in the store; returns the raw key and its id. */
  addKey(plan?: string): Promise<{ raw: string; id: string }>;
  revoke(id: string): Promise<void>;
  close(): Promise<void>;
}

export interface TestEdgeOptions {
  overrides?: Partial<ConfigInput>;
  /** The clock of the limiter and the keyless budget; a frozen clock makes a per-second budget exact. */
  now?: () => number;
  /** The edge's logger; silent when absent. */
  logger?: Logger;
}

type Handlers = Partial<Record<ApiKind, ApiHandler>>;

/**
 * Suites send requests without a key from one address far faster than a person or an agent would; the keyless budget
 * is set low only by the suites about it.
 */
export const KEYLESS_FOR_TESTS = { keylessPerSecond: 10_000 };

/**
 * Suites that refuse on purpose (budgets, connection bounds) get their refusals at once rather than after the
 * tarpit's second each; the tarpit's own suite (test/edge/tarpit.test.ts) sets the delay.
 */
export const REFUSALS_FOR_TESTS = { refusalDelayMs: 0 };

/** `handlers` may be built from the edge's router, for handlers that need it (MCP). */
export async function startTestEdge(handlersOrBuild: Handlers | ((router: Router) => Handlers), opts: TestEdgeOptions = {}): Promise<TestEdge> {
  const { overrides = {} } = opts;
  const config = loadConfig({
    env: {},
    overrides: {
      ...overrides,
      server: { ...REFUSALS_FOR_TESTS, ...overrides.server },
      keys: { dataDir: 'memory://', demoKey: false, ...overrides.keys },
      limits: { ...KEYLESS_FOR_TESTS, ...overrides.limits },
      log: { level: 'silent' },
    },
  });
  const router = new Router(config);
  const handlers = typeof handlersOrBuild === 'function' ? handlersOrBuild(router) : handlersOrBuild;
  const store = await sharedMemoryStore();
  const verifier = createKeyVerifier(store, config.keys, config.plans);
  const charged = new Map<string, number>();
  const limiter = counting(await createLimiter({ limits: config.limits, usage: store, now: opts.now }), charged);
  const tarpit = tarpitOf(config.server);
  const edge = new Edge({ config, router, verifier, limiter, handlers, logger: opts.logger ?? pino({ level: 'silent' }), now: opts.now, tarpit });
  const server = createPublicServer(config.server, tarpit);
  server.on('request', edge.handle);
  server.on('upgrade', edge.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    router,
    store,
    verifier,
    charged,
    async addKey(plan = 'free') {
      const account = await store.createAccount({ name: `edge-test-${plan}` });
      const created = await store.createKey({ accountId: account.id, name: 'test', plan });
      return { raw: created.key, id: created.record.id };
    },
    async revoke(id) {
      await store.revoke(id);
    },
    async close() {
      await edge.drain(1_000);
      server.closeAllConnections();
      await edge.closeSockets();
      await Promise.all([...new Set(Object.values(handlers))].map((h) => h?.close?.()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await limiter.close();
    },
  };
}

/** The real limiter, with a tally of what it allowed. */
function counting(inner: Limiter, charged: Map<string, number>): Limiter {
  return {
    backend: inner.backend,
    async charge(key: VerifiedKey, cost: number): Promise<LimitDecision> {
      const decision = await inner.charge(key, cost);
      if (decision.allowed) charged.set(key.id, (charged.get(key.id) ?? 0) + cost);
      return decision;
    },
    chargeWrite: (key, budget) => inner.chargeWrite(key, budget),
    countUsage: (key, count, tags) => inner.countUsage(key, count, tags),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
