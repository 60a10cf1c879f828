/**
 * The edge's side of every WebSocket: one server with a message-size bound, a cap and a timeout on sockets that have
 * not authenticated yet, authentication by handshake or by the first message that carries a key, charging each
 * message at the cost its endpoint declares before the endpoint sees it, and following the key while the socket is
 * open: its current plan applies, and a revoked key, or one whose plan no longer includes the API, closes the socket.
 * Endpoints (GraphQL subscriptions, JSON-RPC over WebSocket) only speak their protocol.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { GatewayError, isGatewayError } from '../errors.js';
import { extractKey } from '../keys/extract.js';
import { refusalError } from '../limits/headers.js';
import type { LimitDecision } from '../limits/types.js';
import { PendingSockets } from './pendingSockets.js';
import type { HeldRefusal, Tarpit } from './tarpit.js';
import { RawRefusals, refuseSocket } from './plainError.js';
import type { Route } from './route.js';
import type { VerifiedKey } from '../keys/types.js';
import type { Caller, SocketEndpoint, SocketMessage, SocketSession } from './types.js';

export interface SocketGateOptions {
  maxPayloadBytes: number;
  maxUnauthenticated: number;
  maxUnauthenticatedPerClient: number;
  authTimeoutMs: number;
  /** How often an open socket's key is verified again; with the verifier's cache this bounds revocation and plan changes. */
  keyCheckMs: number;
  /** Verifies the key sent in the handshake or `messageKey` and checks the plan; throws a GatewayError. */
  authenticate(req: IncomingMessage, route: Route, messageKey?: string): Promise<Caller | undefined>;
  /** The same check for a key the socket already authenticated with, which no keyless budget pays for. */
  recheck(req: IncomingMessage, route: Route, messageKey?: string): Promise<Caller | undefined>;
  /** Charges a handshake without a key to its client address's budget: the address, and the refusal when it is spent. */
  chargeKeyless(req: IncomingMessage): { client: string; refused?: LimitDecision };
  /** Charges `cost` requests to the caller; throws a GatewayError on refusal. */
  charge(caller: Caller, cost: number, route: Route): Promise<void>;
  /** Where a keyless handshake's refusal waits before it is written. */
  tarpit: Tarpit;
}

/** How long open sockets get to close cleanly at shutdown before they are cut off. */
const SHUTDOWN_CLOSE_MS = 2_000;

export class SocketGate {
  private readonly wss: WebSocketServer;
  private readonly protocols = new WeakMap<IncomingMessage, string>();
  private readonly pending: PendingSockets;
  private readonly refusals = new RawRefusals();

  constructor(private readonly opts: SocketGateOptions) {
    this.pending = new PendingSockets(opts.maxUnauthenticated, opts.maxUnauthenticatedPerClient, opts.authTimeoutMs);
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: opts.maxPayloadBytes,
      handleProtocols: (_offered, req) => this.protocols.get(req) ?? false,
    });
  }

  /**
   * Handshake: the subprotocol, then a key in the handshake, verified (refused at the HTTP level when bad; the promise
   * settles then), else the client's budget and a waiting slot, taken before anything is awaited. A keyless refusal is
   * an answer made once, held in the tarpit, written, and the socket closed: a flood of keyless handshakes costs the
   * gateway little more than its connections, and a client that retries when refused makes one attempt per socket
   * per held refusal. Throws a GatewayError for a handshake refused outright (no subprotocol, two keys).
   */
  accept(endpoint: SocketEndpoint, req: IncomingMessage, socket: Duplex, head: Buffer, route: Route, requestId: string): Promise<void> | undefined {
    const offered = new Set(String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean));
    const protocol = endpoint.pickProtocol(offered);
    if (protocol === undefined) throw new GatewayError('BAD_REQUEST', 'offer a WebSocket subprotocol this endpoint speaks');
    if (extractKey(req.headers, route.pathKey) !== undefined) {
      return this.opts.authenticate(req, route).then((caller) => this.open(endpoint, req, socket, head, route, requestId, protocol, caller));
    }
    const { client, refused } = this.opts.chargeKeyless(req);
    if (refused) {
      const kind = `keyless ${refused.remaining} ${refused.resetSeconds} ${refused.retryAfterSeconds} ${refused.detail ?? ''}`;
      return void this.refuseLater('budget', socket, this.refusals.get(kind, () => refusalError(refused)));
    }
    const slot = this.pending.take(client);
    if (typeof slot !== 'function') return void this.refuseLater('waitingSocket', socket, this.refusals.get(slot, () => this.pending.refusal(slot)));
    this.open(endpoint, req, socket, head, route, requestId, protocol, undefined, slot);
  }

  /** A refusal held in the tarpit, then written and the socket closed (unless its client left meanwhile). */
  private refuseLater(kind: HeldRefusal, socket: Duplex, answer: Buffer): void {
    this.opts.tarpit.hold(kind, () => !socket.destroyed && refuseSocket(socket, answer));
  }

  private open(
    endpoint: SocketEndpoint,
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    route: Route,
    requestId: string,
    protocol: string,
    caller: Caller | undefined,
    releasePending?: () => void,
  ): void {
    if (protocol) this.protocols.set(req, protocol);
    let opened = false;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      opened = true;
      const session = new GatedSession(ws, req, route, requestId, endpoint, this.opts, caller, releasePending);
      endpoint.open(session);
      session.start();
    });
    // ws answers the upgrade at once or aborts it (the client left while its key was verified, a bad handshake)
    // without calling back: an aborted one's slot is free again.
    if (!opened) releasePending?.();
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.close(1001, 'Server shutting down');
    // Clients that do not answer the close frame within the bound are cut off.
    await new Promise((r) => setTimeout(r, this.wss.clients.size > 0 ? SHUTDOWN_CLOSE_MS : 0));
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}

type Listener<A extends unknown[]> = (...args: A) => void | Promise<void>;

class GatedSession implements SocketSession {
  caller?: Caller;
  messageKey?: string;
  private readonly messageListeners: Listener<[SocketMessage]>[] = [];
  private readonly refusedListeners: Listener<[SocketMessage, GatewayError, boolean]>[] = [];
  private readonly closeListeners: Listener<[]>[] = [];
  private readonly recheckListeners: Listener<[VerifiedKey]>[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  /** Messages are admitted one at a time so charging never reorders them. */
  private queue = Promise.resolve();
  private closed = false;

  constructor(
    readonly socket: WebSocket,
    readonly req: IncomingMessage,
    readonly route: Route,
    readonly requestId: string,
    private readonly endpoint: SocketEndpoint,
    private readonly opts: SocketGateOptions,
    caller: Caller | undefined,
    private releasePending: (() => void) | undefined,
  ) {
    if (caller) {
      this.caller = caller;
      this.releasePending = undefined;
    }
  }

  onMessage(listener: Listener<[SocketMessage]>): void {
    this.messageListeners.push(listener);
  }
  onRefused(listener: Listener<[SocketMessage, GatewayError, boolean]>): void {
    this.refusedListeners.push(listener);
  }
  onClose(listener: Listener<[]>): void {
    this.closeListeners.push(listener);
  }
  onRecheck(listener: Listener<[VerifiedKey]>): void {
    this.recheckListeners.push(listener);
  }

  start(): void {
    if (this.caller) this.watchKey();
    else this.timers.push(setTimeout(() => !this.caller && this.close(4408, 'Authentication timeout'), this.opts.authTimeoutMs));
    this.socket.on('message', (data) => {
      const message = toMessage(String(data));
      this.queue = this.queue.then(() => this.admit(message)).catch(() => this.close(1011, 'Internal error'));
    });
    this.socket.on('close', () => this.ended());
    this.socket.on('error', () => this.close(1011, 'Client socket error'));
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close(code, reason.slice(0, 120));
    this.ended();
  }

  private async admit(message: SocketMessage): Promise<void> {
    if (this.closed) return;
    try {
      await this.authenticate(message);
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      for (const l of this.refusedListeners) await l(message, err, this.caller !== undefined);
      return;
    }
    const cost = this.endpoint.costOf(message, this.caller!);
    try {
      if (cost > 0) await this.opts.charge(this.caller!, cost, this.route);
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      for (const l of this.refusedListeners) await l(message, err, true);
      return;
    }
    for (const l of this.messageListeners) await l(message);
  }

  /** A socket without a handshake key authenticates with the first message; a later message may not bring another key. */
  private async authenticate(message: SocketMessage): Promise<void> {
    const carried = this.endpoint.keyIn(message);
    if (this.caller) {
      if (carried !== undefined && carried !== this.caller.raw && carried !== this.messageKey) throw new GatewayError('KEY_CONFLICT');
      return;
    }
    if (carried === undefined) throw new GatewayError('KEY_MISSING');
    const caller = await this.opts.authenticate(this.req, this.route, carried);
    if (!caller) throw new GatewayError('KEY_MISSING');
    this.caller = caller;
    this.messageKey = carried;
    this.releasePending?.();
    this.releasePending = undefined;
    this.watchKey();
  }

  /**
   * The key is checked again as at open, every `keyCheckMs`: the session takes the key's current record, so endpoints
   * and charging read its current plan, endpoints apply its bounds to what is open, and a key revoked, or moved to a
   * plan without this socket's API, closes it.
   */
  private watchKey(): void {
    this.timers.push(
      setInterval(async () => {
        if (!this.caller || this.closed) return;
        try {
          const current = await this.opts.recheck(this.req, this.route, this.messageKey);
          if (!current || this.closed) return;
          this.caller = current;
          for (const l of this.recheckListeners) await l(current.key);
        } catch (err) {
          // A failing key store is neither a revocation nor a plan change: the socket keeps the record it has.
          if (!isGatewayError(err) || this.closed) return;
          if (err.errorName === 'KEY_INVALID') this.close(4403, 'Forbidden: API key revoked');
          else if (err.http === 403) this.close(4403, err.message);
        }
      }, this.opts.keyCheckMs),
    );
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.releasePending?.();
    this.releasePending = undefined;
    for (const l of this.closeListeners) void l();
  }
}

function toMessage(text: string): SocketMessage {
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    return { text, json: undefined };
  }
}
