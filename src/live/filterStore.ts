/**
 * Where filters live between polls: in this process, or in Redis when `REDIS_URL` is set so that any gateway instance
 * answers any poll. A filter is a small JSON document; polls replace it only if nobody else replaced it in between
 * (a version check), so two instances polling one filter at once never hand out the same logs twice.
 */
import type { Redis } from 'ioredis';
import { GatewayError } from '../errors.js';

/** What a log filter asks for, normalised: lower-case addresses, topic positions as lists of alternatives or null. */
export interface LogCriteria {
  address: string[];
  topics: Array<string[] | null>;
  /** Block bounds as sent (`0x..` or a tag); absent means latest. */
  fromBlock?: string;
  toBlock?: string;
}

/** A block the filter has delivered, kept for a while to notice when the chain replaces it. */
export interface SeenBlock {
  n: number;
  hash: string;
  /** Logs delivered from this block (log filters), re-sent with `removed: true` if the block is replaced. */
  logs?: unknown[];
}

export interface FilterState {
  id: string;
  keyId: string;
  network: string;
  kind: 'logs' | 'blocks' | 'pending';
  criteria?: LogCriteria;
  /** The newest block delivered (or the head when the filter was made). */
  cursor: number;
  recent: SeenBlock[];
  /** Clock time (ms) after which the filter is gone unless polled. */
  expiresAt: number;
  version: number;
}

export interface FilterStore {
  /** Adds a filter unless the key already holds `max` unexpired ones; false when it does. */
  add(state: FilterState, max: number, now: number): Promise<boolean>;
  /** The filter, or undefined when it does not exist or has expired. */
  get(id: string, now: number): Promise<FilterState | undefined>;
  /** Stores `state` if the stored version is still `expected`; false when another poll came first or it is gone. */
  replace(state: FilterState, expected: number, now: number): Promise<boolean>;
  /** Removes a key's filter; false when that key has no such filter. */
  remove(id: string, keyId: string): Promise<boolean>;
  /** Filters this store holds (for the metric): exact in memory, undefined on Redis where other instances add too. */
  size(now: number): number | undefined;
  close(): Promise<void>;
}

/** How often the memory store drops every expired filter, so filters nobody polls again do not pile up. */
const SWEEP_MS = 60_000;

export class MemoryFilterStore implements FilterStore {
  private readonly filters = new Map<string, string>();
  private readonly byKey = new Map<string, Map<string, number>>();
  private sweptAt = 0;

  async add(state: FilterState, max: number, now: number): Promise<boolean> {
    if (now - this.sweptAt >= SWEEP_MS) this.size(now);
    const held = this.byKey.get(state.keyId) ?? new Map<string, number>();
    for (const [id, expiresAt] of held) if (expiresAt <= now) this.drop(id, state.keyId);
    if (held.size >= max) return false;
    held.set(state.id, state.expiresAt);
    this.byKey.set(state.keyId, held);
    this.filters.set(state.id, JSON.stringify(state));
    return true;
  }

  async get(id: string, now: number): Promise<FilterState | undefined> {
    const text = this.filters.get(id);
    if (!text) return undefined;
    const state = JSON.parse(text) as FilterState;
    if (state.expiresAt > now) return state;
    this.drop(id, state.keyId);
    return undefined;
  }

  async replace(state: FilterState, expected: number, now: number): Promise<boolean> {
    const current = await this.get(state.id, now);
    if (!current || current.version !== expected) return false;
    this.filters.set(state.id, JSON.stringify(state));
    this.byKey.get(state.keyId)?.set(state.id, state.expiresAt);
    return true;
  }

  async remove(id: string, keyId: string): Promise<boolean> {
    if (!this.byKey.get(keyId)?.has(id)) return false;
    this.drop(id, keyId);
    return true;
  }

  size(now: number): number {
    this.sweptAt = now;
    for (const [keyId, held] of this.byKey) for (const [id, expiresAt] of held) if (expiresAt <= now) this.drop(id, keyId);
    return this.filters.size;
  }

  async close(): Promise<void> {}

  private drop(id: string, keyId: string): void {
    this.filters.delete(id);
    const held = this.byKey.get(keyId);
    held?.delete(id);
    if (held?.size === 0) this.byKey.delete(keyId);
  }
}

/**
 * ARGV: now, max, id, expiresAt. KEYS[1]: the key's sorted set of filter ids scored by expiry. Counts unexpired
 * filters and adds the id when there is room.
 */
const ADD_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(ARGV[4]) - tonumber(ARGV[1])))
return 1
`;

/** KEYS[1]: the filter. ARGV: expected version, new document, TTL ms. Replaces only the expected version. */
const REPLACE_LUA = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if cjson.decode(current).version ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

interface FilterCommands {
  gwFilterAdd(setKey: string, now: number, max: number, id: string, expiresAt: number): Promise<number>;
  gwFilterReplace(filterKey: string, expected: number, doc: string, ttlMs: number): Promise<number>;
}

/**
 * Filters on Redis. A filter is one string key; a key's filters are also listed in a sorted set under the key id's hash
 * tag (for the per-plan count). Each Lua script touches one slot, so a Redis Cluster works too. Redis expiry only
 * collects garbage: whether a filter is still alive is decided against the caller's clock.
 */
export class RedisFilterStore implements FilterStore {
  private constructor(private readonly client: Redis & FilterCommands) {
    this.client.defineCommand('gwFilterAdd', { lua: ADD_LUA, numberOfKeys: 1 });
    this.client.defineCommand('gwFilterReplace', { lua: REPLACE_LUA, numberOfKeys: 1 });
    // Errors reach the caller of each command; the connection itself reconnects in the background.
    this.client.on('error', () => {});
  }

  /** The client library loads here, so a gateway without Redis never holds it. */
  static async open(url: string): Promise<RedisFilterStore> {
    const { Redis } = await import('ioredis');
    return new RedisFilterStore(new Redis(url, { connectTimeout: 1_000, commandTimeout: 2_000, maxRetriesPerRequest: 1, lazyConnect: false }) as Redis & FilterCommands);
  }

  add(state: FilterState, max: number, now: number): Promise<boolean> {
    return available(async () => {
      const added = await this.client.gwFilterAdd(setKey(state.keyId), now, max, state.id, state.expiresAt);
      if (added !== 1) return false;
      await this.client.set(filterKey(state.id), JSON.stringify(state), 'PX', ttl(state, now));
      return true;
    });
  }

  get(id: string, now: number): Promise<FilterState | undefined> {
    return available(async () => {
      const text = await this.client.get(filterKey(id));
      if (!text) return undefined;
      const state = JSON.parse(text) as FilterState;
      return state.expiresAt > now ? state : undefined;
    });
  }

  replace(state: FilterState, expected: number, now: number): Promise<boolean> {
    return available(async () => {
      const replaced = await this.client.gwFilterReplace(filterKey(state.id), expected, JSON.stringify(state), ttl(state, now));
      if (replaced !== 1) return false;
      await this.client.zadd(setKey(state.keyId), state.expiresAt, state.id);
      return true;
    });
  }

  remove(id: string, keyId: string): Promise<boolean> {
    return available(async () => {
      const text = await this.client.get(filterKey(id));
      if (!text || (JSON.parse(text) as FilterState).keyId !== keyId) return false;
      await Promise.all([this.client.del(filterKey(id)), this.client.zrem(setKey(keyId), id)]);
      return true;
    });
  }

  size(): undefined {
    return undefined;
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** A Redis failure is the caller's JSON-RPC error, not a crash of the call. */
async function available<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch {
    // Redis's own message may name its host: it stays out of the client's answer.
    throw new GatewayError('FILTERS_UNAVAILABLE');
  }
}

const filterKey = (id: string) => `gw:filter:{${id}}`;
const setKey = (keyId: string) => `gw:{${keyId}}:filters`;
/** Redis keeps a filter a little past its expiry, so a clock slightly behind another instance's still finds it. */
const ttl = (state: FilterState, now: number) => Math.max(1, state.expiresAt - now) + 60_000;
