import type { IncomingMessage, ServerResponse } from 'node:http';
import type WebSocket from 'ws';
import type { GatewayError } from '../errors.js';
import type { ResponseHeaders } from './responseHeaders.js';
import type { VerifiedKey } from '../keys/types.js';
import type { Route } from './route.js';

/** A caller whose key the edge verified: the key's record and the raw key (for handlers that pass it on, never logged). */
export interface Caller {
  key: VerifiedKey;
  raw: string;
}

/** What the edge gives an API handler for one request, after admission. */
export interface ApiContext {
  req: IncomingMessage;
  res: ServerResponse;
  route: Route;
  requestId: string;
  /**
   * The caller, authenticated and already charged by the edge. Always set under `key: 'required'` admission; under
   * `key: 'optional'` undefined when no key was sent; always undefined under `key: 'none'`.
   */
  caller?: Caller;
  /**
   * The edge's headers for the answer (request id, CORS, rate limits). Already set on `res` when the handler runs,
   * unless it `takesHeaders`: then it writes them itself, with its own, in one `writeHead(status, headers.with(...))`.
   */
  headers: ResponseHeaders;
  /**
   * The body up to `limit` or the configured limit, whichever is lower (read once: the edge may already have read it to
   * price the request); 413 past it. Without a caller the configured limit is the small keyless one, and the body
   * must arrive within the keyless timeout (408).
   */
  readBody(limit?: number): Promise<Buffer>;
  /** Adds fields to this request's log line (never a key). */
  annotate(fields: Record<string, unknown>): void;
  /**
   * What the handler's `costOfBody` made of the body (a parsed JSON-RPC message), kept on the request for its `handle`
   * and `renderError`; only the handler that set it reads it.
   */
  priced?: unknown;
}

/**
 * How the edge admits a request before its handler runs. Every handler declares one (there is no default), so a
 * handler cannot forget to authenticate or charge. A key in a header or the path is verified before the body is read;
 * a request that must carry a key and has none is refused without reading its body.
 */
export type Admission =
  /**
   * Public pages that take no key (key page, health): one request charged to the client address's keyless budget,
   * unless `unmetered` (health checks, which load balancers poll from a few addresses).
   */
  | { key: 'none'; unmetered?: true }
  /** `cost` requests charged before the body is read; without a key, to the client address (at least one). */
  | { key: 'required' | 'optional'; cost: number }
  /**
   * Priced from the body, read after authentication (one per call of a JSON-RPC batch), with the caller whose plan
   * may bound it (undefined under `optional` without a key); without a key, charged to the client address, whose body
   * is held to the keyless limit. `bodyLimit` may lower the gateway's limit. Throws a GatewayError for a body that
   * cannot be priced or that the plan refuses; nothing is charged to a key then.
   */
  | {
      key: 'required' | 'optional';
      costOfBody(body: Buffer, ctx: ApiContext, caller: Caller | undefined): number;
      bodyLimit?: number;
      /**
       * A key pays one request before the body is read, so one out of budget costs no read and no parse. For APIs whose
       * refusals take nothing from the body (JSON-RPC's do: the request's id).
       */
      prepay?: true;
    };

export interface ApiHandler {
  admission: Admission;
  /** Refusals that need neither key nor body (HTTP method, Host and Origin), made before admission. */
  screen?(ctx: ApiContext): void;
  handle(ctx: ApiContext): Promise<void>;
  /**
   * Writes every answer (from `handle` and `renderError`) in one `writeHead` that includes `ctx.headers`, so the edge
   * does not set them on the response one by one first; half the cost of the headers on a small answer.
   */
  takesHeaders?: true;
  /** Renders an error that ends the request in this API's own convention. */
  renderError(err: GatewayError, ctx: ApiContext): void;
  socket?: SocketEndpoint;
  /** At shutdown, after in-flight requests drained: ends long-lived connections and upstream pools. */
  close?(): Promise<void>;
}

/** A client message on a gated socket: parsed JSON, or `undefined` when the text is not JSON. */
export type SocketMessage = { text: string; json: unknown };

/**
 * A WebSocket endpoint. The edge owns the socket: handshake, size bound, the cap and timeout on sockets not yet
 * authenticated, authentication, charging each message at its declared cost before the endpoint sees it, and
 * closing a socket whose key is revoked or whose plan no longer includes the API.
 */
export interface SocketEndpoint {
  /** The subprotocol to speak among those the client offered; undefined refuses the handshake with 400. */
  pickProtocol(offered: Set<string>): string | undefined;
  /** The key a message carries (GraphQL connection_init), for sockets whose handshake carried none. */
  keyIn(message: SocketMessage): string | undefined;
  /**
   * Requests a message of the authenticated `caller` costs, charged by the edge before `onMessage` sees it (a
   * subscription by its price under the caller's plan, 0 for control messages).
   */
  costOf(message: SocketMessage, caller: Caller): number;
  /** A socket the edge accepted; the endpoint speaks its protocol through the session. */
  open(session: SocketSession): void;
}

/** One accepted socket as the endpoint sees it. */
export interface SocketSession {
  socket: WebSocket;
  req: IncomingMessage;
  route: Route;
  requestId: string;
  /**
   * Set once the caller is authenticated: at the handshake (header or path key) or by the first message carrying a key.
   * Replaced as the edge re-verifies the key, so read the plan from here when it applies, never from a copy kept at open.
   */
  readonly caller?: Caller;
  /** The key as it arrived inside a message, which must not travel on to an upstream. */
  readonly messageKey?: string;
  /** Client messages, in order, each admitted and charged. */
  onMessage(listener: (message: SocketMessage) => void | Promise<void>): void;
  /** Messages the edge refused (no key, unknown key, plan, budget); `authenticated` says whether the socket had a caller. */
  onRefused(listener: (message: SocketMessage, err: GatewayError, authenticated: boolean) => void): void;
  /** The socket closed, from either side. */
  onClose(listener: () => void): void;
  /**
   * The edge verified the key again (every `keys.cacheTtlMs`) and `caller` holds its current record: the plan's bounds
   * on what is already open (sockets, subscriptions) apply again, so a downgrade reaches open sockets.
   */
  onRecheck(listener: (key: VerifiedKey) => void): void;
  close(code: number, reason: string): void;
}
