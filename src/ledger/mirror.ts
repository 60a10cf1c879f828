/**
 * The mirror-node REST client: pooled keep-alive connections (undici), a timeout per attempt, retries with
 * exponential back-off on 429/5xx and network errors, and a bound on the total time of one lookup, so a slow or
 * failing mirror node becomes a clear JSON-RPC error instead of a hang. Identical GETs in flight share one request.
 */
import { Pool } from 'undici';
import { GatewayError, hidingCause } from '../errors.js';
import { UpstreamSeries } from '../metrics.js';
import { exchangeText } from '../rpc/textExchange.js';
import { parseExact } from './exactJson.js';

export interface MirrorOptions {
  /** Base URL without /api/v1. */
  url: string;
  /** Separate base URL for POST /api/v1/contracts/call. */
  callUrl?: string;
  apiKey?: string;
  timeoutMs: number;
  retries: number;
  totalMs: number;
  /** Network id for the upstream metrics (the REST passthrough labels the same mirror node the same way). */
  network?: string;
}

export interface MirrorStats {
  /** HTTP attempts sent, retries included. */
  requests: number;
  retries: number;
  /** Lookups that ended in MIRROR_UNAVAILABLE. */
  failures: number;
  /** GETs that joined an identical one already in flight. */
  coalesced: number;
}

export interface MirrorPostAnswer {
  status: number;
  body: any;
}

interface Target {
  pool: Pool;
  prefix: string;
}

const BACKOFF_BASE_MS = 50;
const BACKOFF_MAX_MS = 2_000;
const POOL_CONNECTIONS = 64;

function target(url: string): Target {
  const parsed = new URL(url);
  return {
    pool: new Pool(parsed.origin, { connections: POOL_CONNECTIONS, keepAliveTimeout: 30_000 }),
    prefix: parsed.pathname.replace(/\/+$/, ''),
  };
}

function firstMessage(body: any): string {
  const m = body?._status?.messages?.[0];
  return [m?.message, m?.detail].filter(Boolean).join(': ') || 'no detail';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class MirrorClient {
  private readonly rest: Target;
  private readonly call: Target;
  /** Request headers as undici's flat list, made once: GETs', and POSTs' with their content type. */
  private readonly getHeaders: string[];
  private readonly postHeaders: string[];
  private readonly series: UpstreamSeries;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  readonly stats: MirrorStats = { requests: 0, retries: 0, failures: 0, coalesced: 0 };

  constructor(private readonly opts: MirrorOptions) {
    this.rest = target(opts.url);
    this.call = opts.callUrl ? target(opts.callUrl) : this.rest;
    this.getHeaders = ['accept', 'application/json', ...(opts.apiKey ? ['x-api-key', opts.apiKey] : [])];
    this.postHeaders = [...this.getHeaders, 'content-type', 'application/json'];
    this.series = new UpstreamSeries({ network: opts.network ?? '', upstream: 'mirror' });
  }

  /**
   * GET a mirror-node path (`/api/v1/...`, as `links.next` gives it). Not found is null; a 400 is the caller's
   * bad input and becomes INVALID_PARAMS with the mirror node's message.
   */
  get<T = any>(path: string, options: { exactNumbers?: boolean } = {}): Promise<T | null> {
    const key = `${options.exactNumbers ? 'x' : ''}${path}`;
    const pending = this.inFlight.get(key);
    if (pending) {
      this.stats.coalesced++;
      return pending as Promise<T | null>;
    }
    const request = this.send(this.rest, 'GET', path, undefined)
      .then(({ status, text }) => {
        if (status === 404) return null;
        const body = text ? (options.exactNumbers ? parseExact(text) : JSON.parse(text)) : null;
        if (status >= 400) throw new GatewayError('INVALID_PARAMS', `mirror node rejected the lookup: ${firstMessage(body)}`);
        return body as T;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, request);
    return request;
  }

  /** POST JSON (contracts/call); any answer below 500 other than 429 is returned for the caller to interpret. */
  async post(path: string, payload: unknown): Promise<MirrorPostAnswer> {
    const { status, text } = await this.send(this.call, 'POST', path, JSON.stringify(payload));
    return { status, body: text ? JSON.parse(text) : null };
  }

  /** At shutdown, after the edge drained: anything still in flight is abandoned, not waited for. */
  async close(): Promise<void> {
    await Promise.all([...new Set([this.rest.pool, this.call.pool])].map((p) => p.destroy()));
  }

  private async send(t: Target, method: 'GET' | 'POST', path: string, body: string | undefined): Promise<{ status: number; text: string }> {
    const deadline = Date.now() + this.opts.totalMs;
    let lastProblem = '';
    for (let attempt = 0; attempt <= this.opts.retries; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      if (attempt > 0) this.stats.retries++;
      this.stats.requests++;
      const timeout = Math.min(this.opts.timeoutMs, remaining);
      let retryAfterMs = 0;
      const started = performance.now();
      let outcome = 'error';
      // A bare dispatch and one timer: request()'s AbortSignal.timeout, its DOMException and its body stream cost an
      // eth_call several percent of the gateway's time.
      const exchange = exchangeText(t.pool, { method, path: t.prefix + path, headers: body === undefined ? this.getHeaders : this.postHeaders, body, timeoutMs: timeout });
      const timer = setTimeout(() => exchange.abort(Object.assign(new Error(`no answer within ${timeout} ms`), { name: 'TimeoutError' })), timeout);
      try {
        const res = await exchange.answer;
        outcome = String(res.status);
        // 501 is the mirror node saying it cannot do this call at all: retrying will not help.
        if ((res.status < 500 && res.status !== 429) || res.status === 501) return res;
        lastProblem = `HTTP ${res.status}`;
        const retryAfter = Number(res.retryAfter);
        if (Number.isFinite(retryAfter)) retryAfterMs = retryAfter * 1000;
      } catch (err) {
        lastProblem = (err as Error).name === 'TimeoutError' || /timeout/i.test((err as Error).message) ? `no answer within ${timeout} ms` : (err as Error).message;
      } finally {
        clearTimeout(timer);
        this.series.record((performance.now() - started) / 1000, outcome);
      }
      if (attempt < this.opts.retries) {
        const backoff = Math.max(retryAfterMs, Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt));
        if (Date.now() + backoff >= deadline) break;
        await sleep(backoff);
      }
    }
    this.stats.failures++;
    throw hidingCause('MIRROR_UNAVAILABLE', `${method} ${path.split('?')[0]} failed (${lastProblem || `gave up after ${this.opts.totalMs} ms`})`);
  }
}
