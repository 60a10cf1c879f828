import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import type { Route } from './route.js';

/** What the edge gives an API handler for one request. */
export interface ApiContext {
  req: IncomingMessage;
  res: ServerResponse;
  route: Route;
  requestId: string;
  /**
   * Authenticates the caller (header, Authorization or path key; `extraKey` for keys sent inside a protocol, such as
   * a GraphQL connection_init payload), checks the plan includes this API, and charges `cost` requests to the key's
   * budget and quota. Sets the RateLimit-* headers. Throws a GatewayError (401, 400, 403, 429) on refusal.
   */
  admit(cost?: number, extraKey?: string): Promise<VerifiedKey>;
  /**
   * The key the caller presented (header, Authorization or path), verified but not charged; undefined when none was
   * sent. Throws 401 for an unknown or revoked key and 400 for two different keys. For handlers that pass the caller's
   * key on (MCP tools calling the gateway's own APIs) and for tools that need no key.
   */
  identify(): Promise<{ key: VerifiedKey; raw: string } | undefined>;
  /** Reads the body up to the configured limit; throws BODY_TOO_LARGE (413). */
  readBody(): Promise<Buffer>;
  /** Adds fields to this request's log line (never a key). */
  annotate(fields: Record<string, unknown>): void;
}

/** A WebSocket upgrade routed to an API. */
export interface UpgradeContext {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  route: Route;
  requestId: string;
  /** Same as ApiContext.admit, for the upgrade request or a key from the protocol's init message. */
  admit(cost?: number, extraKey?: string): Promise<VerifiedKey>;
}

export interface ApiHandler {
  handle(ctx: ApiContext): Promise<void>;
  /** Renders an error that ends the request in this API's own convention. */
  renderError(err: GatewayError, ctx: ApiContext): void;
  upgrade?(ctx: UpgradeContext): Promise<void>;
  /** At shutdown, after in-flight requests drained: ends long-lived connections and upstream pools. */
  close?(): Promise<void>;
}
