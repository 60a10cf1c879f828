import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { defaultPlans } from '../../src/config/catalogue.js';
import { configSchema, type Config } from '../../src/config/schema.js';
import type { VerifiedKey } from '../../src/keys/types.js';
import { monthOf } from '../../src/limits/calendar.js';
import type { UsageDelta, UsageStore, WriteBudget } from '../../src/limits/types.js';
import { onFreePort } from '../support/ports.js';
import { reachable } from '../support/services.js';

const PLANS = configSchema.parse({ chains: {}, plans: defaultPlans() }).plans;

/** The ledger relay's submission budget as the gateway passes it, at two per second. */
export const LEDGER_WRITES: WriteBudget = { scope: 'ledger', perSecond: 2 };

/** The limits section after schema defaults, with overrides. */
export function limitsConfig(overrides: Partial<Config['limits']> = {}): Config['limits'] {
  return configSchema.parse({ chains: {}, plans: {}, limits: overrides }).limits;
}

/** Part of every test key id of this run, so a run cleans up only its own Redis keys while another run shares Redis. */
const RUN = randomBytes(4).toString('hex');
/** The Redis keys (`gw:{<key id>}:…`) of this run's test keys. */
export const RUN_REDIS_KEYS = `gw:{lt_${RUN}_*`;

/** A verified key on a catalogue plan, with a fresh id so runs sharing one Redis never share state. */
export function testKey(planName = 'free', overrides: Partial<VerifiedKey> & { rps?: number; quota?: number } = {}): VerifiedKey {
  const { rps, quota, ...rest } = overrides;
  const plan = { ...PLANS[planName], ...(rps ? { requestsPerSecond: rps } : {}), ...(quota ? { monthlyQuota: quota } : {}) };
  return {
    id: `lt_${RUN}_${randomBytes(6).toString('hex')}`,
    accountId: 'acct_test',
    name: 'limits test',
    planName,
    plan,
    network: 'testnet',
    relayBeta: false,
    heavyWrites: false,
    ...rest,
  };
}

/** A clock the test moves by hand. */
export class ManualClock {
  constructor(public ms: number) {}
  readonly now = () => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Usage kept in a Map: for tests that are about the algorithm, not persistence. */
export class MapUsageStore implements UsageStore {
  readonly rows = new Map<string, number>();
  async addUsage(deltas: UsageDelta[]): Promise<void> {
    for (const d of deltas) {
      if (d.outcome !== 'ok') continue;
      const at = `${d.keyId} ${monthOf(d.hour)}`;
      this.rows.set(at, (this.rows.get(at) ?? 0) + d.count);
    }
  }
  async usage(keyId: string, month: string): Promise<number> {
    return this.rows.get(`${keyId} ${month}`) ?? 0;
  }
}

/** A private redis-server on its own port, so a test can stop and restart it without touching the machine's Redis. */
export class RedisChild {
  private child?: ChildProcess;
  private constructor(readonly port: number) {}

  static async start(): Promise<RedisChild> {
    return onFreePort(async (port) => {
      const redis = new RedisChild(port);
      try {
        await redis.up();
      } catch (err) {
        await redis.down();
        throw err;
      }
      return redis;
    });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    let failure: string | undefined;
    child.once('error', (err) => (failure = err.message));
    // It exits at once when the port is taken.
    child.once('exit', (code) => (failure ??= `exited with ${code}`));
    this.child = child;
    for (let i = 0; i < 100 && !failure; i++) {
      if (await reachable(this.port, '127.0.0.1', 100)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not start on port ${this.port}${failure ? `: ${failure}` : ''}`);
  }

  async down(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}

/** Resolves once `check` holds, polling; for effects of background timers (usage flushes, reconnects). */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
