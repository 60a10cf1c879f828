import type { Registry } from 'prom-client';
import { GatewayError } from '../errors.js';
import type { ApiHandler } from './types.js';
import { writeJsonError } from './plainError.js';

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

/** `/healthz` (the process answers), `/readyz` (stores and upstreams reachable), `/metrics` (Prometheus). */
export function createOpsHandler(opts: { registry: Registry; checks: () => ReadinessCheck[]; isDraining: () => boolean }): ApiHandler {
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

  return {
    async handle({ req, res, route }) {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new GatewayError('METHOD_NOT_ALLOWED', 'use GET', undefined, { allow: 'GET, HEAD' });
      if (route.apiPath === '/metrics') {
        const text = await opts.registry.metrics();
        res.writeHead(200, { 'content-type': opts.registry.contentType }).end(text);
        return;
      }
      if (route.apiPath === '/healthz') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
        return;
      }
      const { ready, checks } = opts.isDraining() ? { ready: false, checks: { shutdown: 'draining' } } : await readiness();
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ status: ready ? 'ready' : 'not ready', checks }));
    },
    renderError(err, { res }) {
      writeJsonError(res, err);
    },
  };
}
