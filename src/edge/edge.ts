import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { GatewayError, isGatewayError } from '../errors.js';
import { extractKey } from '../keys/extract.js';
import type { KeyVerifier, VerifiedKey } from '../keys/types.js';
import { refusalError, rateLimitHeaders } from '../limits/headers.js';
import { countRefusal } from '../limits/metrics.js';
import { checkRelayAccess } from '../limits/relayAccess.js';
import type { Limiter } from '../limits/types.js';
import { outcomeOf, requestDuration, requestsTotal } from '../metrics.js';
import { readBody } from './body.js';
import { writeJsonError } from './plainError.js';
import { redactPath, type ApiKind, type Route, type Router } from './route.js';
import type { ApiContext, ApiHandler, UpgradeContext } from './types.js';

export interface EdgeOptions {
  config: Config;
  router: Router;
  verifier: KeyVerifier;
  limiter: Limiter;
  handlers: Partial<Record<ApiKind, ApiHandler>>;
  logger: Logger;
}

/** APIs a browser app may call from another origin; their answers carry permissive CORS headers. */
const CORS_APIS = new Set<ApiKind>(['rpc', 'rest', 'graphql', 'beta-graphql']);
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, x-api-key, authorization',
  'access-control-expose-headers': 'ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after',
  'access-control-max-age': '600',
};

/**
 * The edge: resolve host and path, then hand the request to its API with the services to authenticate, charge and
 * read the body. One log line and one metric observation per request, with the key's id and never the key.
 */
export class Edge {
  private inFlight = 0;
  private draining = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly opts: EdgeOptions) {}

  get isDraining(): boolean {
    return this.draining;
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req);
    res.setHeader('x-request-id', requestId);
    let route: Route | undefined;
    const fields: Record<string, unknown> = {};
    this.inFlight++;
    res.once('close', () => {
      this.inFlight--;
      this.finish(req, res, route, fields, requestId, started);
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
    try {
      route = this.opts.router.resolve(req.headers.host, req.url ?? '/');
    } catch (err) {
      writeJsonError(res, asGatewayError(err, this.opts.logger, requestId));
      return;
    }
    const handler = this.opts.handlers[route.api];
    if (!handler) {
      writeJsonError(res, new GatewayError('NOT_FOUND', `the ${route.api} API is not enabled on this gateway`));
      return;
    }
    if (CORS_APIS.has(route.api)) {
      for (const [h, v] of Object.entries(CORS_HEADERS)) res.setHeader(h, v);
      if (req.method === 'OPTIONS') {
        res.writeHead(204).end();
        return;
      }
    }
    const ctx = this.context(req, res, route, requestId, fields);
    const run = this.draining ? Promise.reject(new GatewayError('SHUTTING_DOWN')) : handler.handle(ctx);
    run.catch((err) => {
      const gatewayError = asGatewayError(err, this.opts.logger, requestId);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      handler.renderError(gatewayError, ctx);
    });
  };

  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const requestId = requestIdOf(req);
    let route: Route;
    try {
      route = this.opts.router.resolve(req.headers.host, req.url ?? '/');
    } catch (err) {
      rejectUpgrade(socket, asGatewayError(err, this.opts.logger, requestId));
      return;
    }
    const handler = this.opts.handlers[route.api];
    if (!handler?.upgrade || this.draining) {
      rejectUpgrade(socket, new GatewayError(this.draining ? 'SHUTTING_DOWN' : 'NOT_FOUND', 'no WebSocket endpoint here'));
      return;
    }
    const ctx: UpgradeContext = { req, socket, head, route, requestId, admit: (cost = 1, extraKey) => this.admit(req, route, cost, extraKey, {}) };
    handler.upgrade(ctx).catch((err) => rejectUpgrade(socket, asGatewayError(err, this.opts.logger, requestId)));
  };

  /** Stops taking new requests and resolves when the ones in flight are done (or the grace period ends). */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.inFlight === 0) return;
    await Promise.race([new Promise<void>((r) => this.idleWaiters.push(r)), new Promise((r) => setTimeout(r, graceMs).unref())]);
  }

  private context(req: IncomingMessage, res: ServerResponse, route: Route, requestId: string, fields: Record<string, unknown>): ApiContext {
    return {
      req,
      res,
      route,
      requestId,
      admit: (cost = 1, extraKey) => this.admit(req, route, cost, extraKey, fields, res),
      identify: () => this.identify(req, route, fields),
      readBody: () => readBody(req, this.opts.config.server.bodyLimitBytes),
      annotate: (more) => Object.assign(fields, more),
    };
  }

  private async identify(req: IncomingMessage, route: Route, fields: Record<string, unknown>, extraKey?: string) {
    const raw = extractKey(req.headers, route.pathKey, extraKey);
    if (raw === undefined) return undefined;
    const key = await this.opts.verifier.verify(raw);
    if (!key) throw new GatewayError('KEY_INVALID');
    fields.keyId = key.id;
    return { key, raw };
  }

  private async admit(
    req: IncomingMessage,
    route: Route,
    cost: number,
    extraKey: string | undefined,
    fields: Record<string, unknown>,
    res?: ServerResponse,
  ): Promise<VerifiedKey> {
    const identified = await this.identify(req, route, fields, extraKey);
    if (!identified) throw new GatewayError('KEY_MISSING');
    const { key } = identified;
    const api = route.api === 'keys' || route.api === 'ops' ? undefined : route.api;
    if (api && !key.plan.apis.includes(api)) {
      countRefusal('plan');
      throw new GatewayError('PLAN_FORBIDDEN', `the ${key.planName} plan does not include ${api}`);
    }
    if (route.api === 'rpc' && route.network?.chain.kind === 'ledger') checkRelayAccess(key, this.opts.config.limits);
    const decision = await this.opts.limiter.charge(key, cost);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) throw refusalError(decision);
    if (res && !res.headersSent) for (const [h, v] of Object.entries(headers)) res.setHeader(h, v);
    return key;
  }

  private finish(req: IncomingMessage, res: ServerResponse, route: Route | undefined, fields: Record<string, unknown>, requestId: string, started: bigint) {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const labels = { chain: route?.network?.chainName ?? '', network: route?.network?.networkName ?? '', api: route?.api ?? 'none' };
    requestDuration.observe(labels, seconds);
    requestsTotal.inc({ ...labels, outcome: outcomeOf(res.statusCode) });
    if (route?.api === 'ops') return;
    this.opts.logger.info(
      {
        requestId,
        host: req.headers.host,
        path: redactPath(req.url ?? ''),
        httpMethod: req.method,
        api: labels.api,
        network: route?.network?.id,
        status: res.statusCode,
        ms: Math.round(seconds * 1e6) / 1e3,
        ...fields,
      },
      'request',
    );
  }
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

function rejectUpgrade(socket: Duplex, err: GatewayError): void {
  const body = JSON.stringify({ error: { code: err.entry.graphql, message: err.message } });
  const headers = Object.entries(err.headers ?? {}).map(([h, v]) => `${h}: ${v}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${err.http} ${err.http === 200 ? 'OK' : 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`,
  );
}
