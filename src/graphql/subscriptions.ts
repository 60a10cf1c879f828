/**
 * Relays one client WebSocket to the GraphQL upstream in the subprotocol the client chose: `graphql-transport-ws`
 * (graphql-ws) or the legacy `graphql-ws` (subscriptions-transport-ws). The edge authenticates (handshake or
 * `connection_init`) and charges every subscription start at its query's price; the relay reads just enough of each
 * message to guard every start against the plan, strip the key before it travels on, and count running subscriptions
 * per key. Ids are JSON scalars (string or number) in both protocols and are compared as sent. Close codes for
 * refusals are 4000 + the HTTP status (4401, 4403, 4429, ...); 4008 closes a socket whose unsent bytes pass the bound.
 */
import { Gauge } from 'prom-client';
import WebSocket, { type RawData } from 'ws';
import type { SocketMessage, SocketSession } from '../edge/types.js';
import { GatewayError, isGatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import { KeySlots } from '../edge/keySlots.js';
import { registry } from '../metrics.js';
import { upstreamFailure } from '../rest/upstream.js';
import { graphqlErrorBody, judgeQuery, measureQuery, priceOf, type GraphqlLimits, type QueryMeasure } from './guards.js';

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

/** A socket closed for reading too slowly is cut off after this long if it does not read the close frame. */
const CLOSE_GRACE_MS = 2_000;
const SLOW_READER = 4008;

/** What a client may send in each protocol; anything else closes the socket rather than travelling on unjudged. */
const CLIENT_TYPES: Record<Protocol, ReadonlySet<string>> = {
  [MODERN]: new Set(['connection_init', 'subscribe', 'complete', 'ping', 'pong']),
  [LEGACY]: new Set(['connection_init', 'start', 'stop', 'connection_terminate']),
};
const STARTS = new Set(['subscribe', 'start']);
const ENDS = new Set(['complete', 'stop']);

/** One running subscription, as the key's subscription slots hold it. */
export interface Running {
  relay: SubscriptionRelay;
  id: string | number;
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
  /** How long a client has to send connection_init (server.wsAuthTimeoutMs, as for authenticating). */
  initTimeoutMs: number;
  /** Largest message the upstream may send. */
  maxPayloadBytes: number;
  /** Unsent bytes a client socket may have, and bytes waiting for the upstream; past it the socket closes with 4008. */
  maxBufferedBytes: number;
  idleTimeoutMs?: number;
  /** Connections per key, counted from authentication, bounded by the plan's maxSubscriptions. */
  connections: KeySlots<SubscriptionRelay>;
  /** Running subscriptions per key, across its connections, bounded by the plan's maxSubscriptions. */
  subscriptions: KeySlots<Running>;
  starts: StartMeasures;
}

const KEY_FIELDS = new Set(['x-api-key', 'authorization']);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const isInit = (m: unknown): m is Message => isObject(m) && m.type === 'connection_init';
/** A subscription start in either protocol, whatever its id: what the edge charges at its query's price. */
export const isSubscribe = (m: unknown): boolean => isObject(m) && typeof m.type === 'string' && STARTS.has(m.type);
/** A message's id when it is a JSON scalar id (string or number), else undefined. */
const idOf = (m: unknown): string | number | undefined => (isObject(m) && (typeof m.id === 'string' || typeof m.id === 'number') ? m.id : undefined);
/** Ids compared as sent: 1 and "1" are different subscriptions. */
const idKey = (id: string | number): string => JSON.stringify(id);

/**
 * Each subscription start measured once (its query parsed, its depth and cost counted), for the edge to price and the
 * relay to judge against the caller's plan.
 */
export class StartMeasures {
  private readonly measured = new WeakMap<SocketMessage, QueryMeasure | GatewayError>();

  constructor(private readonly costPerRequest: number) {}

  /** Requests the edge charges for a start: its query's price, or one for a start `plan` refuses (the relay refuses it). */
  price(message: SocketMessage, plan: GraphqlLimits): number {
    try {
      return priceOf(this.judge(message, plan).cost, this.costPerRequest);
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      return 1;
    }
  }

  /** The start's measure, or the GatewayError that refuses it under `limits` (the same caller's plan each time). */
  judge(message: SocketMessage, limits: GraphqlLimits): QueryMeasure {
    let measure = this.measured.get(message);
    if (measure === undefined) {
      const payload = isObject(message.json) && isObject(message.json.payload) ? message.json.payload : {};
      const request = { query: typeof payload.query === 'string' ? payload.query : '', variables: isObject(payload.variables) ? payload.variables : null };
      try {
        measure = measureQuery(request, limits.maxGraphqlBytes);
      } catch (err) {
        if (!isGatewayError(err)) throw err;
        measure = err;
      }
      this.measured.set(message, measure);
    }
    if (isGatewayError(measure)) throw measure;
    judgeQuery(measure, limits);
    return measure;
  }
}

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
 * The protocol side of one subscription socket. The edge has authenticated the socket and charged each start before
 * a message arrives here; the relay counts the connection from authentication, guards each start against the plan,
 * counts running subscriptions per key, bounds what waits to be sent either way, and relays to the upstream.
 */
export class SubscriptionRelay {
  private readonly protocol: Protocol;
  private readonly client: WebSocket;
  private initialised = false;
  private upstream?: WebSocket;
  /** Client messages waiting for the upstream to open, and their bytes. */
  private readonly pending: string[] = [];
  private pendingBytes = 0;
  /** Running subscriptions by `idKey`, each counted once against the key's cap. */
  private readonly active = new Map<string, Running>();
  private readonly timers: NodeJS.Timeout[] = [];
  private idleTimer?: NodeJS.Timeout;
  /** The key id whose connection this socket counts against, once counted. */
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
    this.timers.push(setTimeout(() => !this.initialised && this.close(4408, 'Connection initialisation timeout'), this.opts.initTimeoutMs));
    this.session.onMessage((m) => this.fromClient(m));
    this.session.onRefused((m, err, authenticated) => this.refused(m, err, authenticated));
    this.session.onClose(() => this.close(1000, ''));
    this.session.onRecheck((key) => this.applyPlan(key));
    // A key in the handshake (header or path) authenticated the socket already: it counts from now, not from its init.
    if (this.session.caller) this.countConnection();
  }

  private async fromClient(message: SocketMessage): Promise<void> {
    const { text, json } = message;
    if (this.closed) return;
    this.touch();
    if (json === undefined) return this.close(4400, 'Message is not JSON');
    if (!isObject(json)) return this.close(4400, 'Message is not a JSON object');
    const msg = json as Message;
    if (typeof msg.type !== 'string' || !CLIENT_TYPES[this.protocol].has(msg.type)) return this.close(4400, `Unknown message type for ${this.protocol}`);
    if (!this.initialised) {
      if (msg.type !== 'connection_init') return this.close(4401, 'Unauthorized: send connection_init first');
      return this.init(msg);
    }
    if (msg.type === 'connection_init') return this.close(4429, 'Too many initialisation requests');
    if (STARTS.has(msg.type) || ENDS.has(msg.type)) {
      const id = idOf(msg);
      if (id === undefined) return this.close(4400, `A ${msg.type} message needs a string or number id`);
      if (STARTS.has(msg.type) && !this.startAllowed(message, id)) return;
      if (ENDS.has(msg.type)) this.ended(id);
    }
    this.toUpstream(text);
  }

  /** Judges a start against the plan and counts it against the key's running subscriptions; refuses it otherwise. */
  private startAllowed(message: SocketMessage, id: string | number): boolean {
    const key = this.session.caller!.key;
    try {
      this.opts.starts.judge(message, key.plan);
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      this.refuseOperation(id, err);
      return false;
    }
    // A start that reuses a running id replaces that subscription (legacy) or is refused upstream (graphql-ws): one count.
    if (this.active.has(idKey(id))) return true;
    const running = { relay: this, id };
    if (!this.opts.subscriptions.tryTake(key.id, running, key.plan.maxSubscriptions)) {
      this.refuseOperation(id, new GatewayError('TOO_MANY_RUNNING_SUBSCRIPTIONS', `your plan allows ${key.plan.maxSubscriptions}`));
      return false;
    }
    this.active.set(idKey(id), running);
    return true;
  }

  /** A subscription that ended (client complete/stop, upstream complete/error) no longer counts. */
  private ended(id: string | number): void {
    const running = this.active.get(idKey(id));
    if (!running) return;
    this.active.delete(idKey(id));
    this.opts.subscriptions.release(this.session.caller!.key.id, running);
  }

  /**
   * The key's current plan, re-read by the edge, bounds what the key has open on every connection: past a lowered
   * bound the newest connections close as a connection past it is refused, then the newest subscriptions end with an
   * `error` for their id (ending it in both protocols) and the upstream is told to stop them.
   */
  private applyPlan(key: VerifiedKey): void {
    const limit = key.plan.maxSubscriptions;
    for (const relay of this.opts.connections.beyond(key.id, limit)) relay.refuseConnection(new GatewayError('TOO_MANY_SUBSCRIPTIONS', `your plan allows ${limit}`));
    for (const { relay, id } of this.opts.subscriptions.beyond(key.id, limit)) {
      relay.ended(id);
      relay.toUpstream(JSON.stringify({ id, type: relay.protocol === MODERN ? 'complete' : 'stop' }));
      relay.refuseOperation(id, new GatewayError('TOO_MANY_RUNNING_SUBSCRIPTIONS', `your plan allows ${limit}`));
    }
  }

  /** A message the edge refused: before authentication the connection, afterwards the one operation. */
  private refused({ json }: SocketMessage, err: GatewayError, authenticated: boolean): void {
    const id = idOf(json);
    if (authenticated && this.initialised && id !== undefined) return this.refuseOperation(id, err);
    if (!authenticated && !isInit(json)) return this.close(4401, 'Unauthorized: send connection_init first');
    this.refuseConnection(err);
  }

  /** Counts this socket against the key's connections; false (and the socket closing) past the plan's bound. */
  private countConnection(): boolean {
    const key = this.session.caller!.key;
    if (this.counted) return true;
    if (!this.opts.connections.tryTake(key.id, this, key.plan.maxSubscriptions)) {
      this.refuseConnection(new GatewayError('TOO_MANY_SUBSCRIPTIONS', `your plan allows ${key.plan.maxSubscriptions}`));
      return false;
    }
    this.counted = key.id;
    openConnections.inc({ network: this.session.route.network?.id ?? '' });
    return true;
  }

  private async init(msg: Message): Promise<void> {
    if (!this.countConnection()) return;
    this.initialised = true;
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
    this.toUpstream(JSON.stringify({ ...msg, payload: withoutKey(msg.payload) }));
    upstream.on('open', () => {
      for (const text of this.pending.splice(0)) upstream.send(text);
      this.pendingBytes = 0;
    });
    upstream.on('message', (data: RawData) => this.fromUpstream(String(data)));
    upstream.on('close', (code, reason) => this.close(sendable(code) ? code : 1011, String(reason) || 'Upstream closed'));
    upstream.on('error', () => this.close(4502, 'Upstream unavailable'));
  }

  private fromUpstream(text: string): void {
    try {
      const msg = JSON.parse(text) as Message;
      const id = idOf(msg);
      if ((msg.type === 'complete' || msg.type === 'error') && id !== undefined) {
        this.ended(id);
        this.touch();
      }
    } catch {
      // Not ours to judge; the client gets what the upstream said.
    }
    this.toClient(text);
  }

  /** Sends to the upstream, or queues until it opens; a client that sends faster than the upstream takes is closed. */
  private toUpstream(text: string): void {
    const open = this.upstream?.readyState === WebSocket.OPEN;
    const waiting = open ? this.upstream!.bufferedAmount : this.pendingBytes;
    const bytes = Buffer.byteLength(text);
    if (waiting > 0 && waiting + bytes > this.opts.maxBufferedBytes) {
      return this.close(SLOW_READER, `More than ${this.opts.maxBufferedBytes} bytes waiting for the upstream`);
    }
    if (open) return this.upstream!.send(text);
    this.pending.push(text);
    this.pendingBytes += bytes;
  }

  /** Sends to the client; one that reads slower than its subscriptions produce is closed rather than buffered without end. */
  private toClient(text: string): void {
    const socket = this.client;
    if (socket.readyState !== WebSocket.OPEN) return;
    const unsent = socket.bufferedAmount;
    if (unsent > 0 && unsent + Buffer.byteLength(text) > this.opts.maxBufferedBytes) {
      this.close(SLOW_READER, `Slow reader: more than ${this.opts.maxBufferedBytes} bytes unread`);
      // A peer that reads nothing never answers the close frame.
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
      return;
    }
    socket.send(text);
  }

  /** Refuses one operation, echoing its id exactly as the client sent it. */
  private refuseOperation(id: string | number, err: GatewayError): void {
    const { errors } = graphqlErrorBody(err);
    const payload = this.protocol === MODERN ? errors : errors[0];
    this.toClient(JSON.stringify({ id, type: 'error', payload }));
  }

  private refuseConnection(err: GatewayError): void {
    if (this.protocol === LEGACY) this.toClient(JSON.stringify({ type: 'connection_error', payload: graphqlErrorBody(err).errors[0] }));
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
      this.opts.connections.release(this.counted, this);
      for (const running of this.active.values()) this.opts.subscriptions.release(this.counted, running);
      openConnections.dec({ network: this.session.route.network?.id ?? '' });
    }
    this.active.clear();
    this.pending.length = 0;
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
