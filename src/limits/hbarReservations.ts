/**
 * Reservations of ledger writes in flight: the largest fee each may still cost, held against its budgets until its
 * records settle it. Settled spend is in the key store; a budget's use is that plus what is held here.
 *
 * In memory they belong to one instance. On Redis every instance holds them in one place, so a budget judged by one
 * instance sees the writes the others have in flight. Redis holds nothing else, so a Redis restart forgets at most the
 * reservations of writes then in flight; while Redis is unreachable each instance falls back to its own reservations,
 * bounded to a few writes in flight, so what instances add unseen by one another stays bounded too.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { GatewayError } from '../errors.js';
import { limiterBackendErrors, limiterDegraded } from './metrics.js';
import { failFastRedis, firstAttempt } from './failFastRedis.js';

/** One budget a write is judged against: its limit, and what the store says was settled this window. */
export interface HeldBudget {
  scope: string;
  limit: number;
  settled: number;
}

export type HoldResult =
  | { held: true; release(): Promise<void> }
  /** `index` is the first budget without room; `used` is its settled spend plus what is held against it. */
  | { held: false; index: number; used: number };

export interface HbarReservations {
  readonly backend: 'memory' | 'redis';
  /** Holds `amount` against every budget if each has room for it, or none. */
  hold(budgets: HeldBudget[], window: number, amount: number): Promise<HoldResult>;
  close(): Promise<void>;
}

const at = (scope: string, window: number) => `${scope}\u0000${window}`;

/** A held reservation whose release runs once, however often it is called (settling and error paths both release). */
function held(release: () => Promise<void>): HoldResult {
  let released: Promise<void> | undefined;
  return { held: true, release: () => (released ??= release()) };
}

/** This instance's reservations; with `maxInFlight`, at most that many writes at once (the Redis outage bound). */
export class LocalReservations implements HbarReservations {
  readonly backend = 'memory' as const;
  private readonly held = new Map<string, number>();
  private inFlight = 0;

  constructor(private readonly maxInFlight = Infinity) {}

  async hold(budgets: HeldBudget[], window: number, amount: number): Promise<HoldResult> {
    for (const [index, b] of budgets.entries()) {
      const used = b.settled + (this.held.get(at(b.scope, window)) ?? 0);
      if (used + amount > b.limit) return { held: false, index, used };
    }
    if (this.inFlight >= this.maxInFlight) {
      throw new GatewayError('LIMITER_UNAVAILABLE', `hbar budgets are shared through Redis, which is unreachable; at most ${this.maxInFlight} writes at once meanwhile`);
    }
    this.inFlight++;
    for (const b of budgets) this.held.set(at(b.scope, window), (this.held.get(at(b.scope, window)) ?? 0) + amount);
    return held(async () => {
      this.inFlight--;
      for (const b of budgets) {
        const left = (this.held.get(at(b.scope, window)) ?? 0) - amount;
        if (left > 0) this.held.set(at(b.scope, window), left);
        else this.held.delete(at(b.scope, window));
      }
    });
  }

  async close(): Promise<void> {}
}

/**
 * KEYS: the budgets' reservation counts. ARGV: amount, expiry (ms), then each budget's limit and settled spend.
 * Returns {1} when held everywhere, else {0, index (1-based), used}. One script, so two instances never both take the
 * last room of a budget.
 */
const HOLD_LUA = `
local amount = tonumber(ARGV[1])
for i = 1, #KEYS do
  local used = tonumber(ARGV[2 + 2 * i]) + tonumber(redis.call('GET', KEYS[i]) or '0')
  if used + amount > tonumber(ARGV[1 + 2 * i]) then return {0, i, used} end
end
for i = 1, #KEYS do
  redis.call('INCRBY', KEYS[i], amount)
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
return {1}
`;

/** KEYS: reservation counts; ARGV[1]: the amount each gives back. A count that reaches zero is removed. */
const RELEASE_LUA = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('DECRBY', KEYS[i], ARGV[1]) <= 0 then redis.call('DEL', KEYS[i]) end
end
return 1
`;

/**
 * A reservation outlives the longest a write can take (the SDK's submission timeout, receipts and records): one held
 * by an instance that died mid-write is given back after this.
 */
const HOLD_EXPIRY_MS = 300_000;

interface HoldCommands {
  gwHbarHold(...args: Array<string | number>): Promise<number[]>;
  gwHbarRelease(...args: Array<string | number>): Promise<number>;
}

export class RedisReservations implements HbarReservations {
  readonly backend = 'redis' as const;
  private down = false;

  private constructor(
    private readonly client: Redis & HoldCommands,
    private readonly outage: LocalReservations,
    private readonly logger?: Logger,
  ) {
    client.defineCommand('gwHbarHold', { lua: HOLD_LUA });
    client.defineCommand('gwHbarRelease', { lua: RELEASE_LUA });
    client.on('error', (err) => this.markDown(err));
    client.on('ready', () => this.markUp());
  }

  /** Starts even when Redis is down: the outage bound answers until it comes up. */
  static async connect(opts: { url: string; outageInFlight: number; logger?: Logger }): Promise<RedisReservations> {
    const client = await failFastRedis<HoldCommands>(opts.url);
    const reservations = new RedisReservations(client, new LocalReservations(opts.outageInFlight), opts.logger);
    await firstAttempt(client);
    return reservations;
  }

  async hold(budgets: HeldBudget[], window: number, amount: number): Promise<HoldResult> {
    // One hash tag: every budget of a write lives on one Redis Cluster shard, so one script can judge them together.
    const keys = budgets.map((b) => `gw:{hbar}:${b.scope}:${window}`);
    let reply: number[];
    try {
      reply = await this.client.gwHbarHold(keys.length, ...keys, amount, HOLD_EXPIRY_MS, ...budgets.flatMap((b) => [b.limit, b.settled]));
    } catch (err) {
      limiterBackendErrors.inc({ backend: 'redis-hbar' });
      this.markDown(err);
      return this.outage.hold(budgets, window, amount);
    }
    this.markUp();
    if (reply[0] !== 1) return { held: false, index: reply[1] - 1, used: reply[2] };
    // A reservation Redis lost (it restarted, or this fails) expires by itself; nothing else waits for it.
    return held(() => this.client.gwHbarRelease(keys.length, ...keys, amount).then(() => undefined, (err) => this.markDown(err)));
  }

  async close(): Promise<void> {
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  private markDown(err: unknown): void {
    if (this.down) return;
    this.down = true;
    limiterDegraded.set({ backend: 'redis-hbar' }, 1);
    this.logger?.error({ err: { message: (err as Error)?.message } }, 'Redis unreachable for hbar reservations; each instance judges hbar budgets from the key store and its own writes in flight');
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    limiterDegraded.set({ backend: 'redis-hbar' }, 0);
  }
}
