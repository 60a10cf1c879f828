/**
 * Relays one client WebSocket to the GraphQL upstream in the subprotocol the client chose: `graphql-transport-ws`
 * (graphql-ws) or the legacy `graphql-ws` (subscriptions-transport-ws). The edge authenticates (handshake or
 * `connection_init`) and charges every subscribe; the relay reads just enough of each message to guard every
 * subscribe, strip the key before it travels on, and know which subscriptions are running. Close codes for refusals are 4000 + the HTTP status (4401, 4403, 4429, ...).
 */
import { Gauge } from 'prom-client';
import WebSocket, { type RawData } from 'ws';
import type { SocketMessage, SocketSession } from '../edge/types.js';
import { GatewayError, isGatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import { registry } from '../metrics.js';
import { upstreamFailure } from '../rest/upstream.js';
import { checkQuery, graphqlErrorBody } from './guards.js';

export const MODERN = 'graphql-transport-ws';
export const LEGACY = 'graphql-ws';
export const PROTOCOLS = [MODERN, LEGACY] as const;
type Protocol = (typeof PROTOCOLS)[number];

/** The newer protocol wins when a client offers both. */
export function pickProtocol(offered: Set<string>): Protocol | undefined {
  return PROTOCOLS.find((p) => offered.has(p));
}

const openConnections = new Gauge({
  name: 'gateway_graphql_subscription_connections',
  help: 'Authenticated GraphQL WebSocket connections open, by network',
  labelNames: ['network'] as const,
  registers: [registry],
});

/** How long a client has to send connection_init, as graphql-ws servers allow by default. */
const INIT_TIMEOUT_MS = 10_000;

/** Open connections per key id, against a per-plan bound (GraphQL's maxSubscriptions unless told otherwise). */
export class ConnectionCounter {
  private readonly open = new Map<string, number>();
  tryOpen(key: VerifiedKey, limit = key.plan.maxSubscriptions): boolean {
    const n = this.open.get(key.id) ?? 0;
    if (n >= limit) return false;
    this.open.set(key.id, n + 1);
    return true;
  }
  release(keyId: string): void {
    const n = (this.open.get(keyId) ?? 1) - 1;
    if (n <= 0) this.open.delete(keyId);
    else this.open.set(keyId, n);
  }
}

interface Message {
  type?: unknown;
  id?: unknown;
  payload?: unknown;
}

export interface RelayOptions {
  upstreamUrl(): Promise<string>;
  /** Bound on the upstream WebSocket handshake. */
  timeoutMs: number;
  /** Largest message the upstream may send. */
  maxPayloadBytes: number;
  idleTimeoutMs?: number;
  connections: ConnectionCounter;
}

const KEY_FIELDS = new Set(['x-api-key', 'authorization']);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const isInit = (m: unknown): m is Message => isObject(m) && m.type === 'connection_init';
/** A subscription start in either protocol; what the edge charges one request for. */
export const isSubscribe = (m: unknown): boolean => isObject(m) && (m.type === 'subscribe' || m.type === 'start') && typeof m.id === 'string';

/** The key in a connection_init payload: `x-api-key` or `Authorization`, at the top or under `headers` (Apollo style). */
export function keyFromInitPayload(payload: unknown): string | undefined {
  for (const scope of [payload, isObject(payload) ? payload.headers : undefined]) {
    if (!isObject(scope)) continue;
    for (const [name, value] of Object.entries(scope)) {
      if (KEY_FIELDS.has(name.toLowerCase()) && typeof value === 'string' && value.trim()) return value.trim().replace(/^bearer\s+/i, '');
    }
  }
  return undefined;
}

/** The payload without the client's key, so the upstream never sees it. */
function withoutKey(payload: unknown): unknown {
  if (!isObject(payload)) return payload;
  const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([name]) => !KEY_FIELDS.has(name.toLowerCase())));
  const out = strip(payload);
  if (isObject(out.headers)) out.headers = strip(out.headers);
  return out;
}

/**
 * The protocol side of one subscription socket. The edge has authenticated the socket and charged each subscribe
 * before a message arrives here; the relay guards queries, limits connections per key and relays to the upstream.
 */
export class SubscriptionRelay {
  private readonly protocol: Protocol;
  private readonly client: WebSocket;
  private initialised = false;
  private upstream?: WebSocket;
  /** Client messages waiting for the upstream to open. */
  private readonly pending: string[] = [];
  private readonly active = new Set<string>();
  private readonly timers: NodeJS.Timeout[] = [];
  private idleTimer?: NodeJS.Timeout;
  private counted?: string;
  private closed = false;

  constructor(
    private readonly session: SocketSession,
    private readonly opts: RelayOptions,
  ) {
    this.client = session.socket;
    this.protocol = this.client.protocol as Protocol;
  }

  start(): void {
    this.timers.push(setTimeout(() => !this.initialised && this.close(4408, 'Connection initialisation timeout'), INIT_TIMEOUT_MS));
    this.session.onMessage((m) => this.fromClient(m));
    this.session.onRefused((m, err, authenticated) => this.refused(m, err, authenticated));
    this.session.onClose(() => this.close(1000, ''));
  }

  private async fromClient({ text, json }: SocketMessage): Promise<void> {
    if (this.closed) return;
    this.touch();
    if (json === undefined) return this.close(4400, 'Message is not JSON');
    if (!isObject(json)) return this.close(4400, 'Message is not a JSON object');
    const msg = json as Message;
    if (!this.initialised) {
      if (msg.type !== 'connection_init') return this.close(4401, 'Unauthorized: send connection_init first');
      return this.init(msg);
    }
    if (msg.type === 'connection_init') return this.close(4429, 'Too many initialisation requests');
    const id = typeof msg.id === 'string' ? msg.id : undefined;
    if (isSubscribe(msg) && id !== undefined) {
      try {
        const payload = isObject(msg.payload) ? msg.payload : {};
        checkQuery(typeof payload.query === 'string' ? payload.query : '', this.session.caller!.key.plan);
      } catch (err) {
        if (!isGatewayError(err)) throw err;
        return this.refuseOperation(id, err);
      }
      this.active.add(id);
    } else if ((msg.type === 'complete' || msg.type === 'stop') && id !== undefined) {
      this.active.delete(id);
    }
    this.toUpstream(text);
  }

  /** A message the edge refused: before authentication the connection, afterwards the one operation. */
  private refused({ json }: SocketMessage, err: GatewayError, authenticated: boolean): void {
    const id = isObject(json) && typeof json.id === 'string' ? json.id : undefined;
    if (authenticated && this.initialised && id !== undefined) return this.refuseOperation(id, err);
    if (!authenticated && !isInit(json)) return this.close(4401, 'Unauthorized: send connection_init first');
    this.refuseConnection(err);
  }

  private async init(msg: Message): Promise<void> {
    const key = this.session.caller!.key;
    if (!this.opts.connections.tryOpen(key)) {
      return this.refuseConnection(new GatewayError('TOO_MANY_SUBSCRIPTIONS', `your plan allows ${key.plan.maxSubscriptions}`));
    }
    this.initialised = true;
    this.counted = key.id;
    openConnections.inc({ network: this.session.route.network?.id ?? '' });
    this.touch();

    let url: string;
    try {
      url = (await this.opts.upstreamUrl()).replace(/^http/, 'ws');
    } catch (err) {
      return this.refuseConnection(upstreamFailure(err));
    }
    if (this.closed) return;
    const upstream = new WebSocket(url, this.protocol, { handshakeTimeout: this.opts.timeoutMs, maxPayload: this.opts.maxPayloadBytes });
    this.upstream = upstream;
    this.pending.push(JSON.stringify({ ...msg, payload: withoutKey(msg.payload) }));
    upstream.on('open', () => {
      for (const text of this.pending.splice(0)) upstream.send(text);
    });
    upstream.on('message', (data: RawData) => this.fromUpstream(String(data)));
    upstream.on('close', (code, reason) => this.close(sendable(code) ? code : 1011, String(reason) || 'Upstream closed'));
    upstream.on('error', () => this.close(4502, 'Upstream unavailable'));
  }

  private fromUpstream(text: string): void {
    try {
      const msg = JSON.parse(text) as Message;
      if ((msg.type === 'complete' || msg.type === 'error') && typeof msg.id === 'string') {
        this.active.delete(msg.id);
        this.touch();
      }
    } catch {
      // Not ours to judge; the client gets what the upstream said.
    }
    if (this.client.readyState === WebSocket.OPEN) this.client.send(text);
  }

  private toUpstream(text: string): void {
    if (this.upstream?.readyState === WebSocket.OPEN) this.upstream.send(text);
    else this.pending.push(text);
  }

  private refuseOperation(id: string, err: GatewayError): void {
    const { errors } = graphqlErrorBody(err);
    const payload = this.protocol === MODERN ? errors : errors[0];
    if (this.client.readyState === WebSocket.OPEN) this.client.send(JSON.stringify({ id, type: 'error', payload }));
  }

  private refuseConnection(err: GatewayError): void {
    if (this.protocol === LEGACY && this.client.readyState === WebSocket.OPEN) {
      this.client.send(JSON.stringify({ type: 'connection_error', payload: graphqlErrorBody(err).errors[0] }));
    }
    this.close(4000 + err.http, err.entry.message);
  }

  /** Re-arms the idle timer; it closes only a connection with nothing running. */
  private touch(): void {
    if (!this.opts.idleTimeoutMs || !this.initialised) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.active.size === 0) this.close(1000, 'Idle timeout');
      else this.touch();
    }, this.opts.idleTimeoutMs);
  }

  private close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    clearTimeout(this.idleTimer);
    if (this.counted) {
      this.opts.connections.release(this.counted);
      openConnections.dec({ network: this.session.route.network?.id ?? '' });
    }
    this.session.close(code, reason);
    if (this.upstream && this.upstream.readyState !== WebSocket.CLOSED) {
      if (this.upstream.readyState === WebSocket.CONNECTING) this.upstream.terminate();
      else this.upstream.close(1000);
    }
  }
}

/** Codes a server may send in a close frame: 1005, 1006 and 1015 only describe what happened locally. */
function sendable(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}
