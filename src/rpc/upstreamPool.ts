import { Pool, errors as undiciErrors } from 'undici';
import { GatewayError } from '../errors.js';
import { upstreamDuration, upstreamRequests } from '../metrics.js';
import { redactText } from '../log.js';

/** Why one upstream attempt failed; every one of these moves on to the next upstream. */
class AttemptFailed extends Error {
  constructor(
    readonly kind: 'timeout' | 'connect' | 'status' | 'body',
    message: string,
  ) {
    super(message);
  }
}

/** Label for metrics: scheme, host and port only, so a credential in an upstream path never becomes a label. */
function upstreamLabel(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

/**
 * JSON-RPC over HTTP to a network's upstreams, in failover order, over keep-alive pools.
 * Connection errors, timeouts and 5xx/429 move on to the next upstream; a JSON-RPC error from an upstream is an answer.
 */
export class UpstreamPool {
  private readonly pools = new Map<string, Pool>();

  constructor(
    private readonly networkId: string,
    private readonly urls: () => Promise<string[]>,
    private readonly timeoutMs: number,
  ) {}

  async post(body: string): Promise<unknown> {
    const urls = await this.urls();
    if (urls.length === 0) throw new GatewayError('UPSTREAM_NOT_CONFIGURED', this.networkId);
    let timedOut = false;
    for (const url of urls) {
      try {
        return await this.attempt(url, body);
      } catch (err) {
        if (!(err instanceof AttemptFailed)) throw err;
        timedOut ||= err.kind === 'timeout';
      }
    }
    throw new GatewayError(timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE', `all ${urls.length} upstream(s) of ${this.networkId} failed`);
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000, connectTimeout: Math.min(this.timeoutMs, 5_000) });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  private async attempt(url: string, body: string): Promise<unknown> {
    const u = new URL(url);
    const label = upstreamLabel(url);
    const stop = upstreamDuration.startTimer({ network: this.networkId, upstream: label });
    let outcome = 'ok';
    try {
      const res = await this.pool(u.origin)
        .request({
          method: 'POST',
          path: u.pathname + u.search,
          headers: { 'content-type': 'application/json', ...(u.username ? { authorization: basicAuth(u) } : {}) },
          body,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        })
        .catch((err: Error) => {
          const timeout = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.ConnectTimeoutError;
          throw new AttemptFailed(timeout ? 'timeout' : 'connect', redactText(err.message));
        });
      if (res.statusCode >= 500 || res.statusCode === 429) {
        await res.body.dump();
        throw new AttemptFailed('status', `HTTP ${res.statusCode}`);
      }
      try {
        return await res.body.json();
      } catch (err) {
        const timeout = err instanceof undiciErrors.BodyTimeoutError;
        throw new AttemptFailed(timeout ? 'timeout' : 'body', timeout ? 'body timeout' : `HTTP ${res.statusCode} with a body that is not JSON`);
      }
    } catch (err) {
      outcome = err instanceof AttemptFailed ? err.kind : 'error';
      throw err;
    } finally {
      stop();
      upstreamRequests.inc({ network: this.networkId, upstream: label, outcome });
    }
  }

  /** At shutdown, after the edge drained: anything still in flight is abandoned, not waited for. */
  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.destroy()));
  }
}

function basicAuth(u: URL): string {
  return `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
}
