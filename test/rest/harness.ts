/**
 * A minimal edge for testing API handlers on their own: a real node:http server on port 0, the real Router, and an
 * admit() over a small in-memory key table that counts charges. The full gateway tests go through src/app.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { Router } from '../../src/edge/route.js';
import type { ApiContext, ApiHandler, UpgradeContext } from '../../src/edge/types.js';
import { GatewayError, isGatewayError } from '../../src/errors.js';
import type { KeyVerifier, VerifiedKey } from '../../src/keys/types.js';

export interface TestEdge {
  url: string;
  config: Config;
  /** Requests charged per key id. */
  charged: Map<string, number>;
  keys: Map<string, VerifiedKey>;
  verifier: KeyVerifier;
  addKey(raw: string, planName?: string): VerifiedKey;
  close(): Promise<void>;
}

export async function startTestEdge(handlers: Partial<Record<string, ApiHandler>>, overrides: Parameters<typeof loadConfig>[0] = {}): Promise<TestEdge> {
  const config = loadConfig({ env: {}, ...overrides });
  const router = new Router(config);
  const keys = new Map<string, VerifiedKey>();
  const charged = new Map<string, number>();
  const verifier: KeyVerifier = { verify: async (raw) => keys.get(raw) ?? null };

  const presented = (req: http.IncomingMessage, pathKey?: string, extra?: string): string | undefined => {
    const header = req.headers['x-api-key'];
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const all = [extra, typeof header === 'string' ? header : undefined, bearer, pathKey].filter((k): k is string => !!k);
    if (new Set(all).size > 1) throw new GatewayError('KEY_CONFLICT');
    return all[0];
  };
  const admitFor = (req: http.IncomingMessage, route: ReturnType<Router['resolve']>) => async (cost = 1, extra?: string) => {
    const raw = presented(req, route.pathKey, extra);
    if (!raw) throw new GatewayError('KEY_MISSING');
    const key = keys.get(raw);
    if (!key) throw new GatewayError('KEY_INVALID');
    if (!key.plan.apis.includes(route.api as never)) throw new GatewayError('PLAN_FORBIDDEN');
    charged.set(key.id, (charged.get(key.id) ?? 0) + cost);
    return key;
  };

  const server = http.createServer(async (req, res) => {
    let handler: ApiHandler | undefined;
    let ctx: ApiContext | undefined;
    try {
      const route = router.resolve(req.headers.host, req.url ?? '/');
      handler = handlers[route.api];
      if (!handler) throw new GatewayError('NOT_FOUND');
      ctx = {
        req,
        res,
        route,
        requestId: 'test',
        admit: admitFor(req, route),
        identify: async () => undefined,
        readBody: async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of req) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks);
        },
        annotate: () => {},
      };
      await handler.handle(ctx);
    } catch (err) {
      const gw = isGatewayError(err) ? err : new GatewayError('INTERNAL');
      if (handler && ctx) handler.renderError(gw, ctx);
      else {
        res.writeHead(gw.http, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: gw.message }));
      }
    }
  });
  server.on('upgrade', async (req, socket, head) => {
    try {
      const route = router.resolve(req.headers.host, req.url ?? '/');
      const handler = handlers[route.api];
      if (!handler?.upgrade) throw new GatewayError('NOT_FOUND');
      const ctx: UpgradeContext = { req, socket, head, route, requestId: 'test', admit: admitFor(req, route) };
      await handler.upgrade(ctx);
    } catch {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
    }
  });
  // Upgraded sockets leave the server's HTTP bookkeeping, so close() ends them itself.
  const sockets = new Set<Duplex>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let next = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    charged,
    keys,
    verifier,
    addKey(raw, planName = 'free') {
      const key: VerifiedKey = {
        id: `k${++next}`,
        accountId: 'acct',
        name: 'test key',
        planName,
        plan: config.plans[planName],
        network: 'testnet',
        relayBeta: false,
        heavyWrites: false,
      };
      keys.set(raw, key);
      return key;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
