/**
 * One sender's nonce order across every instance on one Redis (senderOrder.ts keeps it within one): a sender's burst
 * spread over instances behind a balancer would otherwise meet `Nonce too high` where its transactions land on an
 * instance that has not seen the ones before them.
 *
 * - Turns: the instance's own FIFO turn first, then a Redis lock per sender (SET NX PX), asked again every
 *   LOCK_POLL_MS while another instance holds it. It lasts LOCK_TTL_MS at most, so an instance that dies holding it
 *   delays the sender by that long, never for good. A turn is held from the prechecks until a node accepts the
 *   transaction, a few round trips; the precheck's own wait for a nonce gap (GAP_WAIT_MS) covers the order in which
 *   instances take the lock.
 * - Pending nonces: a sorted set per sender (the nonce its score), expiring `ttlMs` after the sender's last
 *   submission and holding its `maxPerSender` highest, as the local view does; read together with the local view.
 *
 * A Redis fault falls back to the instance's own turns and nonces, never to an error: the sender's burst is then
 * ordered within each instance, as without Redis.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LocalPendingNonces, LocalSenderLocks, type PendingNonces, type SenderLocks } from './senderOrder.js';

const LOCK_TTL_MS = 10_000;
const LOCK_POLL_MS = 10;

/** KEYS: lock. ARGV: token. Releases a lock still held by the caller. */
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

interface LockCommands {
  gwSenderRelease(lock: string, token: string): Promise<number>;
}

/** Defines the lock's release on the connection the senders' turns use. */
export function withSenderCommands(client: Redis): Redis & LockCommands {
  client.defineCommand('gwSenderRelease', { lua: RELEASE_LUA, numberOfKeys: 1 });
  return client as Redis & LockCommands;
}

export class SharedSenderLocks implements SenderLocks {
  private readonly local = new LocalSenderLocks();

  constructor(
    private readonly client: Redis & LockCommands,
    /** The Redis key of a sender's lock. */
    private readonly keyOf: (sender: string) => string,
  ) {}

  async acquire(sender: string): Promise<() => void> {
    const endLocal = await this.local.acquire(sender);
    const lock = this.keyOf(sender);
    const token = randomUUID();
    let held = false;
    try {
      while ((await this.client.set(lock, token, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
      held = true;
    } catch {
      // Redis unreachable: this instance's turn alone.
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      endLocal();
      if (held) this.client.gwSenderRelease(lock, token).catch(() => undefined);
    };
  }
}

export class SharedPendingNonces implements PendingNonces {
  private readonly local: LocalPendingNonces;

  constructor(
    private readonly client: Redis,
    /** The Redis key of a sender's pending nonces. */
    private readonly keyOf: (sender: string) => string,
    private readonly opts: { maxSenders: number; maxPerSender: number; ttlMs: number } = { maxSenders: 10_000, maxPerSender: 64, ttlMs: 60_000 },
  ) {
    this.local = new LocalPendingNonces(opts);
  }

  async add(sender: string, nonce: number): Promise<void> {
    await this.local.add(sender, nonce);
    const key = this.keyOf(sender);
    // The lowest go first past the bound: the mirror node shows those first.
    await this.client
      .multi()
      .zadd(key, nonce, String(nonce))
      .zremrangebyrank(key, 0, -this.opts.maxPerSender - 1)
      .pexpire(key, this.opts.ttlMs)
      .exec()
      .catch(() => undefined);
  }

  async remove(sender: string, nonce: number): Promise<void> {
    await this.local.remove(sender, nonce);
    await this.client.zrem(this.keyOf(sender), String(nonce)).catch(() => undefined);
  }

  async of(sender: string): Promise<number[]> {
    const local = await this.local.of(sender);
    let shared: string[] = [];
    try {
      shared = await this.client.zrange(this.keyOf(sender), '0', '-1');
    } catch {
      // Redis unreachable: this instance's view alone.
    }
    return [...new Set([...shared.map(Number), ...local])];
  }
}
