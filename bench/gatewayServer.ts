/**
 * One gateway in its own process for the benchmark, so its throughput and resident memory are its own.
 * Reads a `Job` as JSON from argv[2]; prints `{"url","key"}`
 * once listening. Logs at info to /dev/null: the cost of a log line is measured, not the terminal.
 */
import pino from 'pino';
import { startGateway } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { ConfigInput } from '../src/config/schema.js';
import type { Limiter } from '../src/limits/types.js';

interface Job {
  chains: ConfigInput['chains'];
  limiter: 'off' | 'memory' | 'redis';
  redisUrl?: string;
  /** Postgres key store, as in production; the embedded PGlite store when absent. */
  databaseUrl?: string;
}

/** A limiter that admits everything: the "limits off" baseline (it has no backend; it reports the cheaper one). */
const noLimits: Limiter = {
  backend: 'memory',
  charge: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0 }),
  chargeWrite: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0 }),
  ping: async () => true,
  close: async () => {},
};

const job = JSON.parse(process.argv[2]) as Job;
const config = loadConfig({
  env: {},
  overrides: {
    server: { port: 0 },
    keys: { dataDir: 'memory://', databaseUrl: job.databaseUrl, demoKey: false },
    sandbox: { enabled: false },
    log: { level: 'info' },
    chains: job.chains,
    limits: { redisUrl: job.limiter === 'redis' ? job.redisUrl : undefined, redisFailure: 'fail-closed' },
    // The relay is open to paid plans; the benchmark key is on one with limits far above any load it sends.
    plans: { enterprise: { requestsPerSecond: 1e9, monthlyQuota: 1e15, apis: ['rpc', 'rest', 'graphql', 'beta-graphql', 'mcp'] } },
  },
});
const gw = await startGateway(config, {
  logger: pino({ level: 'info' }, pino.destination('/dev/null')),
  limiter: job.limiter === 'off' ? noLimits : undefined,
});
if (!(await gw.limiter.ping())) {
  process.stdout.write(`${JSON.stringify({ error: `limiter backend ${job.limiter} unreachable` })}\n`);
  await gw.close();
  process.exit(0);
}
const account = await gw.keyStore.createAccount({ name: 'bench' });
const { key } = await gw.keyStore.createKey({ accountId: account.id, name: 'bench', plan: 'enterprise', flags: ['relay_beta', 'heavy_writes'] });
process.stdout.write(`${JSON.stringify({ url: gw.url, key })}\n`);
process.once('SIGTERM', () => gw.close().then(() => process.exit(0)));
