/**
 * JSON-RPC over WebSocket on `/rpc` (every chain, host and path routing alike). The edge owns the socket (handshake,
 * message size, authentication by header or `/v1/<key>/` path, charging each message one request per call before
 * this endpoint sees it, revocation and plan changes, 1001 at shutdown); this endpoint answers requests and batches
 * exactly as over HTTP, and keeps `eth_subscribe` (`newHeads`, `logs`, `newPendingTransactions`) and `eth_unsubscribe`
 * itself.
 *
 * Bounds: sockets per key and subscriptions per socket are set by the plan, read again as the edge re-verifies the key:
 * after a downgrade the newest sockets past the new bound close with 4429 and the newest subscriptions past it stop
 * (JSON-RPC has no message that ends a subscription: a later eth_unsubscribe finds none). A socket that does not answer a ping by
 * the next one is cut off, and one idle (no message, none being answered, no subscription) is closed; a reader slower
 * than what it asked for is closed with 4008 once its unsent bytes pass `server.wsMaxBufferedBytes`. Notifications
 * count against the key's monthly quota; once it is used up the socket closes with 4429. A socket opened without a
 * key answers its first message with -32001 and closes with 4401.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { NetworkRef } from '../edge/route.js';
import { KeySlots } from '../edge/keySlots.js';
import type { SocketEndpoint, SocketMessage, SocketSession } from '../edge/types.js';
import { GatewayError, isGatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import type { Limiter, WriteBudget } from '../limits/types.js';
import type { NetworkFeed } from '../live/feed.js';
import { gethSubscription, relaySubscription } from '../live/subscriptionParams.js';
import { positional } from '../methods/params.js';
import { rpcNotifications, rpcSockets, rpcSocketsClosed } from '../metrics.js';
import type { CallContext, RpcBackend } from './answer.js';
import { respond } from './respond.js';
import { callCount, parseBody, serializeEdgeError, serializeResponse, toErrorObject, type ParsedBody, type RpcCall, type RpcOutcome } from './jsonrpc.js';

export interface RpcSocketOptions {
  backendFor(network: NetworkRef): RpcBackend | Promise<RpcBackend>;
  feedFor(network: NetworkRef): Promise<NetworkFeed>;
  limiter: Limiter;
  debugPlans: string[];
  writeBudgetFor(network: NetworkRef): WriteBudget | undefined;
  maxBatch: number;
  pingIntervalMs: number;
  idleTimeoutMs: number;
  maxBufferedBytes: number;
  logger?: Logger;
}

export const CLOSE = {
  NO_KEY: 4401,
  SLOW_READER: 4008,
  QUOTA: 4429,
} as const;

/** How often delivered notifications are added to the monthly quota (one count per socket, not one per message). */
const USAGE_FLUSH_MS = 1_000;
/** A socket closed for reading too slowly is cut off after this long if it does not read the close frame. */
const CLOSE_GRACE_MS = 2_000;

export function rpcSocketEndpoint(opts: RpcSocketOptions): SocketEndpoint {
  // Each message is parsed once: to price it for the edge, then to answer it.
  const parsedMessages = new WeakMap<SocketMessage, ParsedBody>();
  const parse = (message: SocketMessage) => {
    let parsed = parsedMessages.get(message);
    if (!parsed) parsedMessages.set(message, (parsed = parseBody(message.text, opts.maxBatch)));
    return parsed;
  };
  const sockets = new KeySlots<SocketSession>();
  const sessions = new Set<RpcSession>();
  // One timer for every socket: pings, idle checks and quota counts (idle sockets cost no timers of their own).
  let timers: NodeJS.Timeout[] = [];
  const startTimers = () => {
    if (timers.length > 0) return;
    timers = [
      setInterval(() => sessions.forEach((s) => s.heartbeat()), opts.pingIntervalMs),
      setInterval(() => sessions.forEach((s) => s.flushUsage()), USAGE_FLUSH_MS),
    ];
    timers.forEach((t) => t.unref());
  };

  return {
    // No subprotocol: JSON-RPC clients offer none.
    pickProtocol: () => '',
    // The key comes with the handshake (header or path), as on HTTP.
    keyIn: () => undefined,
    costOf: (message) => callCount(parse(message)),
    open(session) {
      const network = session.route.network;
      const key = session.caller?.key;
      if (!network) return session.close(4404, 'Not found');
      // JSON-RPC messages carry no key, so a socket without a handshake key can never authenticate: its first message
      // gets the -32001 answer a client can read, then the socket closes rather than waiting for the edge's timeout.
      if (!key) {
        return void session.onRefused((message, err) => {
          refuse(session, parse(message), err);
          session.close(CLOSE.NO_KEY, 'API key missing: send it in a header or in the path (/v1/<key>/rpc)');
        });
      }
      if (!sockets.tryTake(key.id, session, key.plan.maxSockets)) return closeOverCap(session, key);
      const rpc = new RpcSession(session, network, opts, parse);
      sessions.add(rpc);
      startTimers();
      session.onRecheck((current) => {
        for (const newer of sockets.beyond(current.id, current.plan.maxSockets)) {
          rpcSocketsClosed.inc({ reason: 'plan' });
          closeOverCap(newer, current);
        }
        rpc.applyPlan();
      });
      session.onClose(() => {
        rpc.ended();
        sessions.delete(rpc);
        sockets.release(key.id, session);
      });
    },
  };
}

function closeOverCap(session: SocketSession, key: VerifiedKey): void {
  const err = new GatewayError('TOO_MANY_SOCKETS', `your ${key.planName} plan allows ${key.plan.maxSockets}`);
  session.close(4000 + err.http, err.message);
}

function refuse(session: SocketSession, parsed: ParsedBody, err: GatewayError): void {
  if (session.socket.readyState === WebSocket.OPEN) session.socket.send(serializeEdgeError(parsed, toErrorObject(err)));
}

class RpcSession {
  private readonly subscriptions = new Map<string, () => void>();
  private lastActive = Date.now();
  /** Messages being answered: a socket waiting for an answer is not idle. */
  private answering = 0;
  private alive = true;
  private unbilled = 0;
  private messages = 0;
  private closed = false;

  constructor(
    private readonly session: SocketSession,
    private readonly network: NetworkRef,
    private readonly opts: RpcSocketOptions,
    parse: (message: SocketMessage) => ParsedBody,
  ) {
    rpcSockets.inc({ network: network.id });
    session.socket.on('pong', () => (this.alive = true));
    session.onRefused((message, err) => {
      this.lastActive = Date.now();
      // Through the slow-reader bound like any answer: refusals echo the request's id, which can be large.
      this.send(serializeEdgeError(parse(message), toErrorObject(err)));
    });
    session.onMessage((message) => {
      this.lastActive = Date.now();
      this.answering++;
      // Answered concurrently, as JSON-RPC over WebSocket allows: a slow call does not hold up the next.
      this.onMessage(parse(message))
        .catch((err) => {
          opts.logger?.error({ err, requestId: session.requestId }, 'WebSocket JSON-RPC message failed unexpectedly');
          this.send(serializeResponse('null', { error: toErrorObject(new GatewayError('INTERNAL')) }));
        })
        .finally(() => {
          this.answering--;
          this.lastActive = Date.now();
        });
    });
  }

  /** The key's current record: the edge replaces it as it re-verifies the key, so a plan change applies to the next message. */
  private get key(): VerifiedKey {
    return this.session.caller!.key;
  }

  /** Every ping interval: cut off a socket that missed the last ping, close an idle one, ping the rest. */
  heartbeat(): void {
    if (!this.alive) {
      rpcSocketsClosed.inc({ reason: 'no_pong' });
      this.session.socket.terminate();
      return;
    }
    if (this.subscriptions.size === 0 && this.answering === 0 && Date.now() - this.lastActive >= this.opts.idleTimeoutMs) {
      rpcSocketsClosed.inc({ reason: 'idle' });
      this.session.close(1000, 'Idle timeout');
      return;
    }
    this.alive = false;
    this.session.socket.ping();
  }

  /** Adds the notifications delivered since the last flush to the monthly quota; closes the socket once it is used up. */
  flushUsage(): void {
    if (this.unbilled === 0) return;
    const count = this.unbilled;
    this.unbilled = 0;
    this.opts.limiter.countUsage(this.key, count, { api: 'rpc', network: this.network.id }).then(
      (left) => {
        if (left || this.closed) return;
        rpcSocketsClosed.inc({ reason: 'quota' });
        this.session.close(CLOSE.QUOTA, 'Monthly quota exhausted');
      },
      (err) => this.opts.logger?.error({ err }, 'counting notifications failed'),
    );
  }

  /** Stops the newest subscriptions past the plan's bound, which a downgrade may have lowered. */
  applyPlan(): void {
    const excess = this.subscriptions.size - this.key.plan.maxSubscriptionsPerSocket;
    if (excess <= 0) return;
    for (const id of [...this.subscriptions.keys()].slice(-excess)) {
      this.subscriptions.get(id)!();
      this.subscriptions.delete(id);
    }
  }

  /** The socket closed (either side): subscriptions stop, delivered notifications are counted. */
  ended(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.subscriptions.values()) stop();
    this.subscriptions.clear();
    this.flushUsage();
    rpcSockets.dec({ network: this.network.id });
  }

  private async onMessage(parsed: ParsedBody): Promise<void> {
    const backend = await this.opts.backendFor(this.network);
    // The official relay names each request in its error messages (`[Request ID: <uuid>] ...`), and its tools match on
    // that form; over HTTP our x-request-id header names the request, a WebSocket message has no header to carry it.
    const ledger = this.network.chain.kind === 'ledger';
    const requestId = ledger ? randomUUID() : `${this.session.requestId}.${++this.messages}`;
    const ctx = { network: this.network, requestId, key: this.key, ...(ledger ? { errorPrefix: `[Request ID: ${requestId}] ` } : {}) };
    const { body } = await respond(parsed, { handle: (calls, callCtx) => this.answer(calls, callCtx, backend) }, this.opts, ctx);
    if (body !== undefined) this.send(body);
  }

  /** eth_subscribe and eth_unsubscribe here, everything else by the network's backend; answers in call order. */
  private async answer(calls: RpcCall[], ctx: CallContext, backend: RpcBackend): Promise<RpcOutcome[]> {
    const outcomes: RpcOutcome[] = new Array(calls.length);
    const rest: number[] = [];
    const own: Array<Promise<void>> = [];
    calls.forEach((call, i) => {
      if (call.method !== 'eth_subscribe' && call.method !== 'eth_unsubscribe') {
        rest.push(i);
        return;
      }
      const run = call.method === 'eth_subscribe' ? this.subscribe(call.params) : this.unsubscribe(call.params);
      own.push(
        run.then(
          (result) => void (outcomes[i] = { result }),
          (err) => {
            if (!isGatewayError(err)) throw err;
            outcomes[i] = { error: toErrorObject(err) };
          },
        ),
      );
    });
    const forwarded = rest.length > 0 ? backend.handle(rest.map((i) => calls[i]), ctx) : Promise.resolve([]);
    const [answers] = await Promise.all([forwarded, ...own]);
    rest.forEach((i, n) => (outcomes[i] = answers[n]));
    return outcomes;
  }

  private async subscribe(params: unknown): Promise<string> {
    const request = this.network.chain.kind === 'ledger' ? relaySubscription(params) : gethSubscription(params);
    if (this.subscriptions.size >= this.key.plan.maxSubscriptionsPerSocket) {
      throw new GatewayError('TOO_MANY_SOCKET_SUBSCRIPTIONS', `your ${this.key.planName} plan allows ${this.key.plan.maxSubscriptionsPerSocket}`);
    }
    const id = `0x${randomBytes(16).toString('hex')}`;
    const labels = { network: this.network.id, type: request.kind };
    const feed = await this.opts.feedFor(this.network);
    const stop = await feed.subscribe(request, (json) => {
      this.send(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${json}}}`);
      this.unbilled++;
      rpcNotifications.inc(labels);
    });
    if (this.closed) stop();
    else this.subscriptions.set(id, stop);
    return id;
  }

  private async unsubscribe(params: unknown): Promise<boolean> {
    const [given] = positional(params, 1, 1);
    const id = typeof given === 'string' ? given.toLowerCase() : '';
    const stop = this.subscriptions.get(id);
    // geth refuses an unknown id; the official relay answers false (its handleEthUnsubscribe).
    if (!stop && this.network.chain.kind === 'ledger') return false;
    if (!stop) throw new GatewayError('SUBSCRIPTION_NOT_FOUND');
    stop();
    this.subscriptions.delete(id);
    return true;
  }

  /** Sends unless the peer has let more than the bound pile up unread; a message larger than the bound still goes alone. */
  private send(text: string): void {
    const { socket } = this.session;
    if (this.closed || socket.readyState !== WebSocket.OPEN) return;
    const pending = socket.bufferedAmount;
    if (pending > 0 && pending + Buffer.byteLength(text) > this.opts.maxBufferedBytes) {
      rpcSocketsClosed.inc({ reason: 'slow_reader' });
      this.session.close(CLOSE.SLOW_READER, `Slow reader: more than ${this.opts.maxBufferedBytes} bytes unread`);
      // A peer that reads nothing never answers the close frame.
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
      return;
    }
    socket.send(text);
  }
}
