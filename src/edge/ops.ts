import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { GatewayError } from '../errors.js';
import { requireOperatorToken } from './operatorToken.js';
import { writeJsonError } from './plainError.js';
import type { PrivateHandler } from './privateListener.js';
import { OPS_PATHS } from './route.js';
import type { ApiHandler } from './types.js';

/** One dependency `/readyz` reports on. `check` rejects, or resolves false, when it is not usable. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void | boolean>;
}

const CHECK_TIMEOUT_MS = 2_000;
/** Readiness probes arrive every few seconds from every load balancer; one round of checks serves them all. */
const CACHE_MS = 2_000;

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref())]);
}

export interface OpsOptions {
  registry: Registry;
  checks: () => ReadinessCheck[];
  isDraining: () => boolean;
  /** With a token, the public listener also serves `/metrics` and the detail of `/readyz` to requests bearing it. */
  publicToken?: string;
}

/**
 * `/healthz` (the process answers), `/readyz` (stores and upstreams reachable), `/metrics` (Prometheus). On the
 * private listener all three in full; on the public one `/healthz` and `/readyz` say only up or ready, and `/metrics`
 * and the readiness detail answer only a request bearing the operator's ops token, when one is configured.
 */
export function createOps(opts: OpsOptions): { publicHandler: ApiHandler; privateHandler: PrivateHandler } {
  let last: { at: number; result: Promise<{ ready: boolean; checks: Record<string, string> }> } | undefined;

  const readiness = () => {
    if (last && Date.now() - last.at < CACHE_MS) return last.result;
    const result = Promise.all(
      opts.checks().map(async ({ name, check }) => {
        try {
          if ((await withTimeout(check())) === false) throw new Error('unreachable');
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, `failed: ${(err as Error).message}`] as const;
        }
      }),
    ).then((pairs) => ({ ready: pairs.every(([, s]) => s === 'ok'), checks: Object.fromEntries(pairs) }));
    last = { at: Date.now(), result };
    return result;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, path: string, detail: boolean) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new GatewayError('METHOD_NOT_ALLOWED', 'use GET', undefined, { allow: 'GET, HEAD' });
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (path === '/metrics') {
      if (!detail) throw new GatewayError('NOT_FOUND', 'metrics are served on the private listener');
      const text = await opts.registry.metrics();
      res.writeHead(200, { 'content-type': opts.registry.contentType }).end(text);
      return;
    }
    const { ready, checks } = opts.isDraining() ? { ready: false, checks: { shutdown: 'draining' } } : await readiness();
    res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(detail ? { status: ready ? 'ready' : 'not ready', checks } : { status: ready ? 'ready' : 'not ready' }));
  };

  /** The public listener shows detail only to the ops token, and only when the operator configured one. */
  const bearsToken = (req: IncomingMessage) => {
    if (!opts.publicToken || req.headers.authorization === undefined) return false;
    requireOperatorToken(req, opts.publicToken);
    return true;
  };

  return {
    publicHandler: {
      admission: { key: 'none', unmetered: true },
      handle: ({ req, res, route }) => serve(req, res, route.apiPath, bearsToken(req)),
      renderError(err, { res }) {
        writeJsonError(res, err);
      },
    },
    privateHandler: (req, res) => {
      const path = (req.url ?? '/').split('?', 1)[0];
      if (!OPS_PATHS.includes(path)) throw new GatewayError('NOT_FOUND');
      return serve(req, res, path, true);
    },
  };
}
