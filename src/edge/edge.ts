import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { GatewayError, isGatewayError } from '../errors.js';
import { extractKey } from '../keys/extract.js';
import type { KeyVerifier, VerifiedKey } from '../keys/types.js';
import { ClientBudget } from '../limits/clientBudget.js';
import { refusalError, rateLimitHeaders } from '../limits/headers.js';
import { countRefusal } from '../limits/metrics.js';
import { checkRelayAccess } from '../limits/relayAccess.js';
import type { LimitDecision, Limiter } from '../limits/types.js';
import { logRequest } from '../log.js';
import { observeRequest } from '../metrics.js';
import { readBody } from './body.js';
import { clientAddress } from './clientAddress.js';
import { rawJsonError, refuseSocket, writeJsonError } from './plainError.js';
import { ResponseHeaders } from './responseHeaders.js';
import { redactPath, type ApiKind, type Route, type Router } from './route.js';
import { SocketGate } from './sockets.js';
import { tarpitOf, type Tarpit } from './tarpit.js';
import type { Admission, ApiContext, ApiHandler, Caller } from './types.js';

export interface EdgeOptions {
  config: Config;
  router: Router;
  verifier: KeyVerifier;
  limiter: Limiter;
  handlers: Partial<Record<ApiKind, ApiHandler>>;
  logger: Logger;
  /** Clock of the keyless budget, in ms; tests inject one. */
  now?: () => number;
  /** Where budget refusals wait before they are written: the public server's, so one bound holds them all. */
  tarpit?: Tarpit;
}

/**
 * Refusals a client past its budget repeats in a loop: held before they are written. Other refusals (a bad key, a
 * body too large) are answered at once, as a client that gets one has something to fix rather than a time to wait.
 */
const HELD = new Set(['KEYLESS_LIMITED', 'RATE_LIMITED', 'QUOTA_EXHAUSTED']);

/** APIs a browser app may call from another origin; their answers carry permissive CORS headers. */
const CORS_APIS = new Set<ApiKind>(['rpc', 'rest', 'graphql', 'beta-graphql']);
/** What a browser reads from any cross-origin answer. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after',
};
/**
 * What a browser reads only from a preflight's answer (the Fetch standard's CORS-preflight fetch), so only a preflight
 * carries them: on every answer they were three more headers for Node to validate and write (`checkInvalidHeaderChar`,
 * `processHeader` and `_storeHeader` in the edge profile).
 */
const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, x-api-key, authorization',
  'access-control-max-age': '600',
};

/**
 * The edge: resolve host and path, admit the request as its API declares (authenticate, check the plan, charge), then
 * hand it to the API. One log line and one metric observation per request, with the key's id and never the key.
 */
export class Edge {
  private inFlight = 0;
  private draining = false;
  private idleWaiters: Array<() => void> = [];

  private readonly sockets: SocketGate;
  /** Requests without a key, per client address: whoever sends them is not known, so their address pays. */
  private readonly keyless: ClientBudget;
  private readonly tarpit: Tarpit;
  /** The last route resolved on each connection, and the host and URL it was resolved for (see routeOf). */
  private readonly lastRoutes = new WeakMap<object, { host: string | undefined; url: string; route: Route }>();

  constructor(private readonly opts: EdgeOptions) {
    const { server, keys, limits } = opts.config;
    this.keyless = new ClientBudget({ perSecond: limits.keylessPerSecond, now: opts.now });
    this.tarpit = opts.tarpit ?? tarpitOf(server);
    this.sockets = new SocketGate({
      maxPayloadBytes: server.wsMaxPayloadBytes,
      maxUnauthenticated: server.wsMaxUnauthenticated,
      maxUnauthenticatedPerClient: server.wsMaxUnauthenticatedPerClient,
      authTimeoutMs: server.wsAuthTimeoutMs,
      keyCheckMs: keys.cacheTtlMs,
      // As promises: a socket's refusals are its rejections.
      authenticate: async (req, route, messageKey) => this.authenticate(req, route, messageKey),
      recheck: async (req, route, messageKey) => this.authenticate(req, route, messageKey, undefined, true),
      chargeKeyless: (req) => {
        const client = clientAddress(req, server.clientIpHeader);
        return { client, refused: this.keyless.tryCharge(client, 1) };
      },
      tarpit: this.tarpit,
      charge: async (caller, cost, route) => void (await this.charge(caller, cost, route)),
    });
  }

  get isDraining(): boolean {
    return this.draining;
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const ctx = new RequestContext(req, res, requestIdOf(req), this.opts.config.server);
    this.inFlight++;
    res.once('close', () => {
      this.inFlight--;
      this.finish(ctx);
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
    let route: Route;
    try {
      route = this.routeOf(req);
    } catch (err) {
      closeUnread(req, res);
      this.refuseUnrouted(ctx, asGatewayError(err, this.opts.logger, ctx.requestId));
      return;
    }
    ctx.route = route;
    const handler = this.opts.handlers[route.api];
    if (!handler) {
      closeUnread(req, res);
      ctx.headers.applyTo(res);
      writeJsonError(res, new GatewayError('NOT_FOUND', `the ${route.api} API is not enabled on this gateway`));
      return;
    }
    if (CORS_APIS.has(route.api)) {
      ctx.headers.setAll(CORS_HEADERS);
      if (req.method === 'OPTIONS') {
        res.writeHead(204, ctx.headers.with(PREFLIGHT_HEADERS)).end();
        return;
      }
    }
    this.admitThenHandle(handler, ctx).catch((err) => {
      const gatewayError = asGatewayError(err, this.opts.logger, ctx.requestId);
      if (gatewayError.internal) ctx.fields.internalErrors = [gatewayError.internal];
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (!handler.takesHeaders) ctx.headers.applyTo(res);
      closeUnread(req, res);
      // A flood of keyless requests past their address's budget would write a line per refusal: they are counted
      // (gateway_limit_refusals_total{reason="keyless"}) and logged at debug.
      if (gatewayError.errorName === 'KEYLESS_LIMITED') ctx.quiet = true;
      if (!HELD.has(gatewayError.errorName)) return handler.renderError(gatewayError, ctx);
      // Logged and counted as refused even if the client leaves while it is held.
      res.statusCode = gatewayError.http;
      this.tarpit.hold('budget', () => !res.destroyed && handler.renderError(gatewayError, ctx));
    });
  };

  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // Node hands over an upgrading socket with no error listener: a client that resets it while its handshake is
    // judged would make the refusal's write throw out of the process.
    socket.on('error', destroyOnError);
    let route: Route;
    try {
      route = this.opts.router.resolve(req.headers.host, req.url ?? '/');
    } catch (err) {
      refuseSocket(socket, rawJsonError(asGatewayError(err, this.opts.logger, requestIdOf(req))));
      return;
    }
    const endpoint = route.unsafePath ? undefined : this.opts.handlers[route.api]?.socket;
    if (!endpoint || this.draining) {
      const refusal = route.unsafePath ? new GatewayError('PATH_REFUSED') : new GatewayError(this.draining ? 'SHUTTING_DOWN' : 'NOT_FOUND', 'no WebSocket endpoint here');
      refuseSocket(socket, rawJsonError(refusal));
      return;
    }
    const requestId = requestIdOf(req);
    const refuse = (err: unknown) => refuseSocket(socket, rawJsonError(asGatewayError(err, this.opts.logger, requestId)));
    try {
      this.sockets.accept(endpoint, req, socket, head, route, requestId)?.catch(refuse);
    } catch (err) {
      refuse(err);
    }
  };

  /**
   * A request's route. A client on a keep-alive connection asks the same host and URL again and again: the last route
   * resolved on the connection is kept with it and used again for the same two strings (resolving was 3,600
   * instructions of a cached relay answer). A connection holds one entry, gone with it.
   */
  private routeOf(req: IncomingMessage): Route {
    const host = req.headers.host;
    const url = req.url ?? '/';
    const last = this.lastRoutes.get(req.socket);
    if (last !== undefined && last.url === url && last.host === host) return last.route;
    const route = this.opts.router.resolve(host, url);
    this.lastRoutes.set(req.socket, { host, url, route });
    return route;
  }

  /** Stops taking new requests and resolves when the ones in flight are done (or the grace period ends). */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    this.tarpit.flush();
    if (this.inFlight === 0) return;
    await Promise.race([new Promise<void>((r) => this.idleWaiters.push(r)), new Promise((r) => setTimeout(r, graceMs).unref())]);
  }

  /** Closes every WebSocket (1001), cutting off those that do not close in time. */
  closeSockets(): Promise<void> {
    return this.sockets.close();
  }

  /**
   * The one admission point: the handler's screen, then the key from a header or the path (verified and checked
   * against the plan before any body is read), then the declared cost (from the body when it depends on it), charged
   * before the handler runs. Without a key the client address pays, one request before any body is read and the
   * rest of the cost (at least one in all) once it is known.
   */
  private async admitThenHandle(handler: ApiHandler, ctx: RequestContext): Promise<void> {
    if (this.draining) throw new GatewayError('SHUTTING_DOWN');
    if (ctx.route.unsafePath) throw new GatewayError('PATH_REFUSED');
    handler.screen?.(ctx);
    const admission = handler.admission;
    if (admission.key === 'none') {
      if (!admission.unmetered) this.chargeKeyless(ctx.req, 1);
    } else {
      const authenticated = this.authenticate(ctx.req, ctx.route, undefined, ctx.fields);
      const caller = authenticated instanceof Promise ? await authenticated : authenticated;
      if (!caller && admission.key === 'required') throw new GatewayError('KEY_MISSING');
      // Set before the body is read: its limit and timeout depend on whether anyone is known.
      ctx.caller = caller;
      if (!('cost' in admission)) await this.chargeBody(admission, ctx, caller);
      else if (!caller) this.chargeKeyless(ctx.req, Math.max(1, admission.cost));
      // Nothing to charge (the key owner's usage report): the key is verified, the budget untouched.
      else if (admission.cost > 0) ctx.headers.setAll(rateLimitHeaders(await this.charge(caller, admission.cost, ctx.route)));
    }
    if (!handler.takesHeaders) ctx.headers.applyTo(ctx.res);
    await handler.handle(ctx);
  }

  /**
   * A body's price is known only once it is read and parsed. A caller without a key, and a key on an API that
   * `prepay`s, pay one request before the body is read, so an exhausted budget costs no read and no parse; the rest of
   * the price follows once it is known. A body the handler refuses (too large, unparsable, over the plan's bounds) has
   * cost its reading, so it is never free: one request at least.
   */
  private async chargeBody(admission: Extract<Admission, { costOfBody: unknown }>, ctx: RequestContext, caller: Caller | undefined): Promise<void> {
    const paid = !caller || admission.prepay ? 1 : 0;
    let decision = caller && paid ? await this.charge(caller, 1, ctx.route) : undefined;
    if (!caller) this.chargeKeyless(ctx.req, 1);
    let cost: number;
    try {
      cost = admission.costOfBody(await ctx.readBody(admission.bodyLimit), ctx, caller);
    } catch (err) {
      if (caller && !paid && isGatewayError(err)) await this.charge(caller, 1, ctx.route);
      throw err;
    }
    if (cost > paid && caller) decision = await this.charge(caller, cost - paid, ctx.route);
    else if (cost > paid) this.chargeKeyless(ctx.req, cost, paid);
    if (decision) ctx.headers.setAll(rateLimitHeaders(decision));
  }

  private chargeKeyless(req: IncomingMessage, cost: number, prepaid = 0): void {
    this.keyless.charge(clientAddress(req, this.opts.config.server.clientIpHeader), cost, prepaid);
  }

  /** A request no route takes (unknown host, network or path): in the conventions of the API its path names, else plain JSON. */
  private refuseUnrouted(ctx: RequestContext, err: GatewayError): void {
    const api = this.opts.router.apiNamedBy(ctx.req.url ?? '/');
    const handler = api && this.opts.handlers[api];
    if (!handler) {
      ctx.headers.applyTo(ctx.res);
      writeJsonError(ctx.res, err);
      return;
    }
    if (CORS_APIS.has(api)) ctx.headers.setAll(CORS_HEADERS);
    if (!handler.takesHeaders) ctx.headers.applyTo(ctx.res);
    // The route is the handler's only: the request's log line and metrics count it as routed nowhere.
    const { req, res, requestId, headers } = ctx;
    const route = { api, apiPath: '', publicPrefix: '' };
    handler.renderError(err, { req, res, route, requestId, headers, readBody: (limit) => ctx.readBody(limit), annotate: (fields) => ctx.annotate(fields) });
  }

  /**
   * The caller of a header, path or (WebSocket) message key, verified and checked against the plan; undefined without a
   * key. A key arriving now (not an open socket's `recheck`) that is unknown or revoked costs its sender's address one
   * keyless request, so guessing keys, each a key-store look-up, is budgeted like any keyless call. A refusal is thrown
   * when the key was known at once, else the promise rejects with it.
   */
  private authenticate(req: IncomingMessage, route: Route, messageKey?: string, logFields?: Record<string, unknown>, recheck = false): Caller | undefined | Promise<Caller | undefined> {
    const raw = extractKey(req.headers, route.pathKey, messageKey);
    if (raw === undefined) return undefined;
    // A cached key is checked at once: no promise between the request and its charge.
    const verified = this.opts.verifier.verify(raw);
    return verified instanceof Promise
      ? verified.then((key) => this.admitKey(req, route, raw, key, logFields, recheck))
      : this.admitKey(req, route, raw, verified, logFields, recheck);
  }

  /** The caller of a verified key, checked against the plan; a key unknown or revoked is refused (see authenticate). */
  private admitKey(req: IncomingMessage, route: Route, raw: string, key: VerifiedKey | null, logFields: Record<string, unknown> | undefined, recheck: boolean): Caller {
    if (!key) {
      if (!recheck) this.chargeKeyless(req, 1);
      throw new GatewayError('KEY_INVALID');
    }
    if (logFields) logFields.keyId = key.id;
    const api = route.api === 'keys' || route.api === 'ops' || route.api === 'usage' ? undefined : route.api;
    if (api && !key.plan.apis.includes(api)) {
      countRefusal('plan');
      throw new GatewayError('PLAN_FORBIDDEN', `the ${key.planName} plan does not include ${api}`);
    }
    if (route.api === 'rpc' && route.network?.chain.kind === 'ledger') checkRelayAccess(key, this.opts.config.limits);
    return { key, raw };
  }

  private charge(caller: Caller, cost: number, route: Route): Promise<LimitDecision> {
    return this.opts.limiter.charge(caller.key, cost, { api: route.api, network: route.network?.id ?? '' }).then(admitted);
  }

  private finish(ctx: RequestContext) {
    const { req, res, requestId, fields } = ctx;
    const route = ctx.route as Route | undefined;
    const seconds = Number(process.hrtime.bigint() - ctx.started) / 1e9;
    const api = route?.api ?? 'none';
    observeRequest(route?.network?.chainName ?? '', route?.network?.networkName ?? '', api, res.statusCode, seconds);
    if (api === 'ops' || (ctx.quiet && !this.opts.logger.isLevelEnabled('debug'))) return;
    const line = {
      requestId,
      host: req.headers.host,
      path: redactPath(req.url ?? ''),
      httpMethod: req.method,
      api,
      network: route?.network?.id,
      status: res.statusCode,
      ms: Math.round(seconds * 1e6) / 1e3,
    } as Record<string, unknown>;
    // Copied member by member: a literal ending in `...fields` is a runtime call on this Node (V8 11.3).
    for (const name in fields) line[name] = fields[name];
    if (ctx.quiet) this.opts.logger.debug(line, 'request');
    else logRequest(this.opts.logger, line);
  }
}

/**
 * One request as the edge and its handler see it: methods rather than per-request closures, so admitting a request
 * allocates this one object.
 */
class RequestContext implements ApiContext {
  readonly started = process.hrtime.bigint();
  /** Set once the request is routed; a request no route takes never has one. */
  route!: Route;
  caller?: Caller;
  priced?: unknown;
  /** Refused by the keyless budget: its line is logged at debug, not info. */
  quiet?: true;
  /** The fields of the request's log line besides the edge's own. */
  readonly fields: Record<string, unknown> = {};
  readonly headers: ResponseHeaders;
  private body?: Promise<Buffer>;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    private readonly bounds: Config['server'],
  ) {
    this.headers = new ResponseHeaders(['x-request-id', requestId]);
  }

  /** A body read before anyone is known is held to the small keyless limit and timeout; a caller's to the gateway's limit. */
  readBody(limit = Infinity): Promise<Buffer> {
    const { bodyLimitBytes, keylessBodyLimitBytes, keylessBodyTimeoutMs } = this.bounds;
    return (this.body ??= this.caller
      ? readBody(this.req, Math.min(limit, bodyLimitBytes))
      : readBody(this.req, Math.min(limit, keylessBodyLimitBytes), keylessBodyTimeoutMs));
  }

  annotate(fields: Record<string, unknown>): void {
    Object.assign(this.fields, fields);
  }
}

/**
 * Refused before its body was read (unknown path, no key, no budget, a keyless body past its limit): the connection
 * closes once the answer is written rather than stay open while Node drains the rest of a body nobody will read, which
 * for a request routed nowhere had no bound but the request timeout. It is closed outright, without the half-close and
 * the turn Node's own close after `connection: close` takes: a client past its budget may be reconnecting thousands
 * of times a second.
 */
function closeUnread(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  res.setHeader('connection', 'close');
  res.once('finish', () => req.socket.destroy());
}

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
}

function asGatewayError(err: unknown, logger: Logger, requestId: string): GatewayError {
  if (isGatewayError(err)) return err;
  logger.error({ requestId, err }, 'unexpected error');
  return new GatewayError('INTERNAL');
}

/** A decision that admits, or its refusal thrown. */
function admitted(decision: LimitDecision): LimitDecision {
  if (!decision.allowed) throw refusalError(decision);
  return decision;
}

/** The upgrading socket's error listener: one function for every socket, not a closure each. */
function destroyOnError(this: Duplex): void {
  this.destroy();
}
