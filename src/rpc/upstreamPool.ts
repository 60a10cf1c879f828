import type { Logger } from 'pino';
import { Pool, errors as undiciErrors } from 'undici';
import { GatewayError, hidingCause } from '../errors.js';
import { redactText } from '../log.js';
import { onFirstUse } from '../startOnce.js';
import { UpstreamSeries, upstreamChainMismatch, upstreamHedges, upstreamInRotation } from '../metrics.js';
import { exchangeText, type Exchange, type TextAnswer } from './textExchange.js';
import { UpstreamHealth, type HealthConfig } from './upstreamHealth.js';

/** Why one upstream attempt failed; every one of these moves on to the next upstream. */
class AttemptFailed extends Error {
  constructor(
    readonly kind: 'timeout' | 'connect' | 'status' | 'body' | 'aborted',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Label for metrics: the upstream's place in the network's configured list (`rpc0`, `rpc1`), never its host, which
 * tells a scraper where the operator's provider lives (and some providers put the credential in the host name).
 */
function upstreamLabel(index: number): string {
  return `rpc${index}`;
}

interface Upstream {
  url: URL;
  /** The request line's path and the request headers, prepared once. */
  path: string;
  headers: string[];
  label: string;
  /** Its metric labels, made once rather than per request, and its series of the per-request metrics. */
  labels: { network: string; upstream: string };
  series: UpstreamSeries;
  /** The keep-alive pool of its origin (shared with any other upstream there). */
  pool: Pool;
  health: UpstreamHealth;
  /** unverified until its eth_chainId answered; refused for good when it named another chain. */
  state: 'unverified' | 'verified' | 'refused';
  probing: boolean;
}

export interface UpstreamPoolOptions {
  networkId: string;
  chainId: number;
  /** Resolved once, on first use (sandbox devnets start then). */
  urls: () => Promise<string[]>;
  timeoutMs: number;
  /** Most connections to one upstream; calls beyond wait in the pool's queue. */
  connections: number;
  health: HealthConfig;
  logger?: Logger;
}

export interface PostOptions<T> {
  hedge?: boolean;
  read?: (text: string) => T | undefined;
  /** The lowest head an upstream must have to be asked (the block the body names, or the head its key was shown). */
  minHead?: bigint;
  /** An upstream not to ask (one that already answered this body). */
  exclude?: string;
  /** Told which upstream gave the answer, and its head as last known. */
  answered?(label: string, head: bigint | undefined): void;
}

/** The reason given to an attempt another upstream answered first. */
const OVERTAKEN = new Error('overtaken by another upstream');

const CHAIN_ID = '{"jsonrpc":"2.0","id":0,"method":"eth_chainId","params":[]}';
const BLOCK_NUMBER = '{"jsonrpc":"2.0","id":0,"method":"eth_blockNumber","params":[]}';

/**
 * JSON-RPC over HTTP to a network's upstreams over keep-alive pools, healthiest first. Each upstream's eth_chainId is
 * checked before it serves; a probe keeps head lag and recovery current. A read that its first upstream answers more
 * slowly than usual is also sent to the next one, and the first answer wins. Connection errors, timeouts and 5xx/429
 * move on to the next upstream; a JSON-RPC error from an upstream is an answer.
 */
export class UpstreamPool {
  private readonly pools = new Map<string, Pool>();
  private upstreams: Upstream[] = [];
  private readonly starting = onFirstUse(() => this.init());
  /** Set once started: a request then does not wait a turn on the settled start. */
  private ready = false;
  private probe?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: UpstreamPoolOptions) {}

  /** Checks every upstream's chain id and starts probing; requests wait for it. Safe to call more than once. */
  start(): Promise<void> {
    return this.starting.get();
  }

  private async init(): Promise<void> {
    const urls = await this.opts.urls();
    this.upstreams = urls.map((url, i) => {
      const u = new URL(url);
      const headers = ['content-type', 'application/json', ...(u.username ? ['authorization', basicAuth(u)] : [])];
      const label = upstreamLabel(i);
      const labels = { network: this.opts.networkId, upstream: label };
      const series = new UpstreamSeries(labels);
      return { url: u, path: u.pathname + u.search, headers, label, labels, series, pool: this.pool(u.origin), health: new UpstreamHealth(this.opts.health), state: 'unverified', probing: false };
    });
    if (this.closed || this.upstreams.length === 0) return void (this.ready = true);
    this.probe = setInterval(() => this.probeAll(), this.opts.health.probeIntervalMs).unref();
    // Serving starts with the first upstream confirmed, so one that hangs at start-up does not hold the others back.
    await new Promise<void>((resolve) => {
      let pending = this.upstreams.length;
      for (const u of this.upstreams) {
        // Marked as probing, so the first probes do not check it a second time meanwhile.
        u.probing = true;
        void this.verify(u).finally(() => {
          u.probing = false;
          pending--;
          if (u.state === 'verified' || pending === 0) resolve();
        });
      }
    });
    this.ready = true;
  }

  /** One eth_chainId: verified, refused (logged and counted), or left unverified for the probe to retry. */
  private async verify(u: Upstream): Promise<void> {
    let answer: unknown;
    try {
      answer = await this.timed(u, this.exchange(u, CHAIN_ID), parseJson);
    } catch {
      return;
    }
    const reported = (answer as { result?: unknown } | null)?.result;
    if (typeof reported === 'string' && /^0x[0-9a-fA-F]+$/.test(reported) && BigInt(reported) === BigInt(this.opts.chainId)) {
      u.state = 'verified';
      return;
    }
    u.state = 'refused';
    upstreamChainMismatch.inc(u.labels);
    upstreamInRotation.set(u.labels, 0);
    this.opts.logger?.error(
      { network: this.opts.networkId, upstream: u.label, expected: this.opts.chainId, reported: typeof reported === 'string' ? reported : null },
      'upstream answers eth_chainId for another chain; refused',
    );
  }

  /** Each upstream on its own, so one that hangs until the timeout does not hold up the others' probes. */
  private probeAll(): void {
    for (const u of this.upstreams) {
      if (u.probing || u.state === 'refused') continue;
      u.probing = true;
      void this.probeOne(u).finally(() => {
        u.probing = false;
        this.publishRotation();
      });
    }
  }

  private async probeOne(u: Upstream): Promise<void> {
    if (u.state === 'unverified') return this.verify(u);
    return this.readHead(u);
  }

  private async readHead(u: Upstream): Promise<void> {
    try {
      const head = (await this.timed(u, this.exchange(u, BLOCK_NUMBER), parseJson)) as { result?: unknown };
      if (typeof head?.result === 'string' && /^0x[0-9a-fA-F]+$/.test(head.result)) u.health.head = BigInt(head.result);
    } catch {
      // Counted as a failure by timed(); the next probe tries again.
    }
  }

  private publishRotation(): void {
    // A probe cut off by close() must not bring back the labels close() removed.
    if (this.closed) return;
    const best = this.bestHead();
    for (const u of this.upstreams) {
      if (u.state === 'verified') upstreamInRotation.set(u.labels, u.health.inRotation(best) ? 1 : 0);
    }
  }

  private bestHead(): bigint | undefined {
    let best: bigint | undefined;
    for (const u of this.upstreams) if (u.state === 'verified' && u.health.head !== undefined && (best === undefined || u.health.head > best)) best = u.health.head;
    return best;
  }

  /**
   * Verified upstreams in rotation by score (configured order breaks ties), then the rest as a last resort. With
   * `minHead`, only those whose head is not known to be below it (known ones first); when none is, the one furthest
   * ahead alone, which answers as a node does for a block it does not have yet.
   */
  private order(minHead?: bigint, exclude?: string): Upstream[] {
    // One upstream: every rule below comes to it alone, when it is verified and not the one excluded.
    if (this.upstreams.length === 1) {
      const only = this.upstreams[0];
      return only.state === 'verified' && only.label !== exclude ? [only] : [];
    }
    const best = this.bestHead();
    const verified = this.upstreams.filter((u) => u.state === 'verified' && u.label !== exclude);
    const byScore = (a: Upstream, b: Upstream) => a.health.score() - b.health.score();
    const inRotation = verified.filter((u) => u.health.inRotation(best)).sort(byScore);
    const order = inRotation.length === verified.length ? inRotation : [...inRotation, ...verified.filter((u) => !inRotation.includes(u)).sort(byScore)];
    if (minHead === undefined) return order;
    const ahead = order.filter((u) => u.health.head !== undefined && u.health.head >= minHead);
    const unknown = order.filter((u) => u.health.head === undefined);
    if (ahead.length + unknown.length > 0) return [...ahead, ...unknown];
    const furthest = order.reduce<Upstream | undefined>((f, u) => (!f || u.health.head! > f.health.head! ? u : f), undefined);
    return furthest ? [furthest] : [];
  }

  /** Whether a verified upstream other than `exclude` is known to have reached block `head`. */
  hasHead(head: bigint, exclude?: string): boolean {
    return this.upstreams.some((u) => u.state === 'verified' && u.label !== exclude && u.health.head !== undefined && u.health.head >= head);
  }

  /** A head an answer showed (an eth_blockNumber it gave): newer than the last probe's. */
  noteHead(label: string, head: bigint): void {
    const u = this.upstreams.find((x) => x.label === label);
    if (u && (u.health.head === undefined || head > u.health.head)) u.health.head = head;
  }

  /**
   * Sends one JSON-RPC body and returns the answer of the first upstream that gives one, as `read` makes it of the
   * body's text (parsed JSON unless told otherwise; undefined from `read` means the body is not JSON, and the next
   * upstream is tried). With `hedge`, a slow first attempt is joined by one on the next upstream after its hedge delay;
   * the slower attempt is abandoned.
   */
  post<T = unknown>(body: string, opts: PostOptions<T> = {}): Promise<T> {
    // Not an async function: once started, a request is one promise from here to its answer.
    if (!this.ready) return this.start().then(() => this.post(body, opts));
    const read = opts.read ?? (parseJson as (text: string) => T | undefined);
    const order = this.order(opts.minHead, opts.exclude);
    if (order.length === 0) {
      if (this.upstreams.length === 0) return Promise.reject(new GatewayError('UPSTREAM_NOT_CONFIGURED', this.opts.networkId));
      return Promise.reject(new GatewayError('UPSTREAM_UNAVAILABLE', `no upstream of ${this.opts.networkId} has confirmed chain id ${this.opts.chainId}`));
    }
    if (order.length === 1) return this.postOnly(order[0], body, read, opts);
    return new Promise((resolve, reject) => {
      const running = new Map<Upstream, Exchange>();
      let next = 0;
      let settled = false;
      let timedOut = false;
      const problems: string[] = [];
      let hedgeTimer: NodeJS.Timeout | undefined;
      const finish = () => {
        settled = true;
        clearTimeout(hedgeTimer);
        for (const [u, exchange] of running) {
          u.health.overtaken();
          exchange.abort(OVERTAKEN);
        }
        running.clear();
      };
      const launch = (): void => {
        if (settled || next >= order.length) return;
        const u = order[next++];
        const exchange = this.exchange(u, body);
        running.set(u, exchange);
        this.timed(u, exchange, read).then(
          (answer) => {
            running.delete(u);
            if (settled) return;
            finish();
            opts.answered?.(u.label, u.health.head);
            resolve(answer);
          },
          (err: unknown) => {
            running.delete(u);
            if (settled) return;
            if (!(err instanceof AttemptFailed)) {
              finish();
              reject(err);
              return;
            }
            timedOut ||= err.kind === 'timeout';
            problems.push(`${u.label}: ${err.message}`);
            launch();
            if (running.size === 0) {
              finish();
              reject(this.allFailed(order.length, problems, timedOut));
            }
          },
        );
      };
      launch();
      const delay = opts.hedge && order.length > 1 ? order[0].health.hedgeDelayMs(this.opts.timeoutMs) : undefined;
      if (delay !== undefined) {
        hedgeTimer = setTimeout(() => {
          if (settled || running.size === 0) return;
          upstreamHedges.inc({ network: this.opts.networkId });
          launch();
        }, delay);
      }
    });
  }

  /**
   * `post` when one upstream may be asked: nothing to hedge or fail over to, so no attempt bookkeeping (the forwarding
   * profile's single upstream spent more on that than on the attempt itself), and one promise from the exchange's
   * answer to the caller.
   */
  private postOnly<T>(u: Upstream, body: string, read: (text: string) => T | undefined, opts: PostOptions<T>): Promise<T> {
    return this.timed(u, this.exchange(u, body), read, {
      answered: () => opts.answered?.(u.label, u.health.head),
      failure: (err) => (err instanceof AttemptFailed ? this.allFailed(1, [`${u.label}: ${err.message}`], err.kind === 'timeout') : err),
    });
  }

  private allFailed(count: number, problems: string[], timedOut: boolean): GatewayError {
    const detail = `all ${count} upstream(s) of ${this.opts.networkId} failed`;
    return hidingCause(timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE', problems.join('; '), detail);
  }

  /**
   * One attempt, timed and counted, its outcome recorded in the upstream's health (an abandoned one is not): one then()
   * on the exchange's answer. `then.answered` runs on success; `then.failure` makes what is thrown of a failure.
   */
  private timed<T>(
    u: Upstream,
    exchange: Exchange,
    read: (text: string) => T | undefined,
    then: { answered?: () => void; failure?: (err: unknown) => unknown } = {},
  ): Promise<T> {
    const started = performance.now();
    const failure = then.failure ?? ((err: unknown) => err);
    return exchange.answer.then(
      (answer) => {
        let value: T;
        try {
          value = this.succeeded(u, started, answer, read);
        } catch (err) {
          throw failure(err);
        }
        then.answered?.();
        return value;
      },
      (err: unknown) => {
        throw failure(this.failed(u, started, attemptFailure(err, exchange)));
      },
    );
  }

  /**
   * An attempt's answer as `read` makes it, recorded as a success; an answer it cannot take is recorded as a failure
   * and thrown. One clock for the health score and the histogram: prom-client's startTimer costs a closure, an hrtime
   * and a copy of the labels per request, and its observe a label check and hash.
   */
  private succeeded<T>(u: Upstream, started: number, answer: TextAnswer, read: (text: string) => T | undefined): T {
    let value: T;
    try {
      value = accepted(answer, read);
    } catch (err) {
      throw this.failed(u, started, err);
    }
    const ms = performance.now() - started;
    u.health.succeeded(ms);
    u.series.record(ms / 1000, 'ok');
    return value;
  }

  /** An attempt's failure, recorded (an abandoned attempt is not held against the upstream's health); returns it. */
  private failed(u: Upstream, started: number, err: unknown): unknown {
    const outcome = err instanceof AttemptFailed ? err.kind : 'error';
    if (outcome !== 'aborted') u.health.failed();
    u.series.record((performance.now() - started) / 1000, outcome);
    return err;
  }

  private exchange(u: Upstream, body: string): Exchange {
    return exchangeText(u.pool, { method: 'POST', path: u.path, headers: u.headers, body, timeoutMs: this.opts.timeoutMs });
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: this.opts.connections, pipelining: 1, keepAliveTimeout: 30_000, connectTimeout: Math.min(this.opts.timeoutMs, 5_000) });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** At shutdown, after the edge drained: anything still in flight is abandoned, not waited for. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.probe);
    for (const u of this.upstreams) upstreamInRotation.remove(u.labels);
    await Promise.all([...this.pools.values()].map((p) => p.destroy()));
  }
}

/** Why an exchange gave no answer, as the attempt's failure. */
function attemptFailure(err: unknown, exchange: Exchange): AttemptFailed {
  if (err === OVERTAKEN) return new AttemptFailed('aborted', 'overtaken by another upstream');
  if (err instanceof undiciErrors.BodyTimeoutError) return new AttemptFailed('timeout', 'body timeout');
  if (exchange.started) return new AttemptFailed('body', 'the body was cut off');
  const timeout = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.ConnectTimeoutError;
  return new AttemptFailed(timeout ? 'timeout' : 'connect', redactText((err as Error).message));
}

/** An answer's value as `read` makes it; a 5xx, a 429 or a body `read` cannot take fails the attempt. */
function accepted<T>(answer: TextAnswer, read: (text: string) => T | undefined): T {
  if (answer.status >= 500 || answer.status === 429) throw new AttemptFailed('status', `HTTP ${answer.status}`);
  const value = read(answer.text);
  if (value === undefined) throw new AttemptFailed('body', `HTTP ${answer.status} with a body that is not JSON`);
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function basicAuth(u: URL): string {
  return `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
}
