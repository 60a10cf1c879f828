import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** How often an instance says it is alive, and after how many missed beats the others stop counting it. */
export const HEARTBEAT_MS = 1_000;
const MISSED_BEATS = 3;

/** KEYS[1]: the members (a sorted set scored by last beat). ARGV: now (ms), this instance, oldest beat still alive. */
const BEAT_LUA = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], ${HEARTBEAT_MS * MISSED_BEATS * 2})
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(ids)
local rank = 0
for i, id in ipairs(ids) do if id == ARGV[2] then rank = i - 1 end end
return {#ids, rank}
`;

interface BeatCommands {
  gwBeat(members: string, now: number, id: string, oldest: number): Promise<[count: number, rank: number]>;
}

/**
 * The instances sharing one Redis, as each last saw them: every instance beats once a second, and counts the
 * instances that beat in the last three. While Redis is unreachable an instance keeps the last count it saw, so that
 * it can take its share of a shared budget (the whole divided by the count) instead of the whole.
 */
export class Membership {
  readonly id = randomUUID();
  /** Instances alive at the last beat, this one included. */
  alive = 1;
  /** This instance's place among them (0 to alive - 1) by id, stable between beats: spreads instances' local decisions apart. */
  rank = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly client: Redis,
    private readonly now: () => number,
    private readonly setKey = 'gw:members',
  ) {
    client.defineCommand('gwBeat', { lua: BEAT_LUA, numberOfKeys: 1 });
  }

  start(): Promise<void> {
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
    return this.beat();
  }

  /** One beat; while Redis is down the last count stands. */
  async beat(): Promise<void> {
    const now = this.now();
    try {
      const [count, rank] = await (this.client as Redis & BeatCommands).gwBeat(this.setKey, now, this.id, now - HEARTBEAT_MS * MISSED_BEATS);
      this.alive = Math.max(1, count);
      this.rank = rank;
    } catch {
      // Unreachable: keep what was last known.
    }
  }

  /** Leaves at once, so that the others' count drops without waiting for the missed beats. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    try {
      await this.client.zrem(this.setKey, this.id);
    } catch {
      // Unreachable: the others drop this instance after its missed beats.
    }
  }
}
