/** A Redis client for state shared across instances, where a request must never wait on an outage. */
import type { Redis } from 'ioredis';

/** Short enough that an instance notices an outage within a request's patience, and reconnects as often. */
const RECONNECT_MS = 100;

/**
 * No queueing while disconnected and one-second timeouts: a caller falls back to its own outage rule at once instead of
 * stalling. Reconnects stay frequent, since until an instance is back on Redis its local decisions and the others'
 * shared ones add up to more than any budget. The client library loads here, so a gateway without Redis never holds it.
 */
export async function failFastRedis<Commands>(url: string): Promise<Redis & Commands> {
  const { Redis } = await import('ioredis');
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: 1_000,
    retryStrategy: () => RECONNECT_MS,
  }) as Redis & Commands;
}

/** Resolves once the client has first connected or first failed: a gateway starts either way, its outage rule answering meanwhile. */
export function firstAttempt(client: Redis): Promise<void> {
  return new Promise<void>((resolve) => {
    client.once('ready', resolve);
    client.once('error', () => resolve());
  });
}
