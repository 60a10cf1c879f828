/**
 * One gateway in its own process for the benchmark, so its throughput and resident memory are its own. Compiled to
 * JavaScript and run without a loader, as `npm start` runs the gateway. Reads a `GatewayJob` as JSON from argv[2]; prints
 * `{"url","metricsUrl","key","keys","keyStoreHeapBytes"}` once listening. Logs through the gateway's own logger (redaction included) at
 * info to /dev/null: the cost of a log line is measured, not the terminal.
 */
import { startGateway } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { ConfigInput } from '../src/config/schema.js';
import { openKeyStore } from '../src/keys/store.js';
import type { Limiter } from '../src/limits/types.js';
import { bufferedDestination, createLogger } from '../src/log.js';

export interface GatewayJob {
  chains: ConfigInput['chains'];
  limiter: 'off' | 'memory' | 'redis';
  redisUrl?: string;
  /** Postgres key store; the embedded store in `dataDir` when absent. */
  databaseUrl?: string;
  dataDir: string;
  upstreamHealth?: ConfigInput['upstreamHealth'];
  /** Plans besides the benchmark key's (`enterprise`). */
  plans?: ConfigInput['plans'];
  /** Off unless given: the bench's networks have stub upstreams. */
  sandbox?: ConfigInput['sandbox'];
  /** Further keys to make, by name: the plan of each; printed as `keys`. */
  keys?: Record<string, string>;
}

/** A limiter that admits everything: the "limits off" baseline (it has no backend; it reports the cheaper one). */
const noLimits: Limiter = {
  backend: 'memory',
  charge: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0 }),
  chargeWrite: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0 }),
  countUsage: async () => true,
  ping: async () => true,
  close: async () => {},
};

const job = JSON.parse(process.argv[2]) as GatewayJob;
const config = loadConfig({
  env: {},
  overrides: {
    server: { port: 0 },
    keys: { dataDir: job.dataDir, databaseUrl: job.databaseUrl, demoKey: false },
    sandbox: job.sandbox ?? { enabled: false },
    log: { level: 'info' },
    chains: job.chains,
    upstreamHealth: job.upstreamHealth,
    limits: { redisUrl: job.limiter === 'redis' ? job.redisUrl : undefined, redisFailure: 'fail-closed' },
    // The relay is open to paid plans; the benchmark key is on one with limits far above any load it sends.
    plans: { ...job.plans, enterprise: { requestsPerSecond: 1e9, monthlyQuota: 1e15, apis: ['rpc', 'rest', 'graphql', 'beta-graphql', 'mcp'] } },
  },
});
// The key store's share of the heap: what opening it added, after collecting garbage (the bench runs this with --expose-gc).
const heapUsed = () => (globalThis.gc?.(), process.memoryUsage().heapUsed);
const heapBefore = heapUsed();
const keyStore = await openKeyStore({ keys: config.keys, plans: config.plans });
const keyStoreHeapBytes = Math.max(0, heapUsed() - heapBefore);
const gw = await startGateway(config, {
  logger: createLogger('info', bufferedDestination('/dev/null')),
  limiter: job.limiter === 'off' ? noLimits : undefined,
  keyStore,
});
if (!(await gw.limiter.ping())) {
  process.stdout.write(`${JSON.stringify({ error: `limiter backend ${job.limiter} unreachable` })}\n`);
  await gw.close();
  await keyStore.close();
  process.exit(0);
}
const account = await gw.keyStore.createAccount({ name: 'bench' });
const { key } = await gw.keyStore.createKey({ accountId: account.id, name: 'bench', plan: 'enterprise', flags: ['relay_beta', 'heavy_writes'] });
const keys: Record<string, string> = {};
for (const [name, plan] of Object.entries(job.keys ?? {})) keys[name] = (await gw.keyStore.createKey({ accountId: account.id, name, plan })).key;
process.stdout.write(`${JSON.stringify({ url: gw.url, metricsUrl: gw.privateUrl ?? gw.url, key, keys, keyStoreHeapBytes })}\n`);
process.once('SIGTERM', () => gw.close().then(() => keyStore.close()).then(() => process.exit(0)));
