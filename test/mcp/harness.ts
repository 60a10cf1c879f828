import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/load.js';
import { readBody } from '../../src/edge/body.js';
import { Router } from '../../src/edge/route.js';
import type { ApiContext } from '../../src/edge/types.js';
import { GatewayError, isGatewayError } from '../../src/errors.js';
import { extractKey } from '../../src/keys/extract.js';
import type { VerifiedKey } from '../../src/keys/types.js';
import { createMcpHandler } from '../../src/mcp/handler.js';

export const GOOD_KEY = 'pk_test_harnessgoodkey0123456789';
export const APP_URL = 'https://app.example.test';

export interface Harness {
  url: string;
  /** Requests charged so far, and the ones refused for budget. */
  charged: number;
  close(): Promise<void>;
}

/**
 * The MCP handler alone behind a real HTTP server on loopback, with a minimal edge: the real router and key
 * extraction, one known key, and a budget of `budget` requests. For what does not need the gateway's other APIs.
 */
export async function startHarness(opts: { budget?: number; bodyLimitBytes?: number; allowedHosts?: string[] } = {}): Promise<Harness> {
  const config = loadConfig({ env: {}, overrides: { sandbox: { enabled: true } } });
  const router = new Router(config);
  const key: VerifiedKey = { id: 'k1', accountId: 'a1', name: 'test', planName: 'free', plan: config.plans.free, network: 'testnet', relayBeta: false, heavyWrites: false };
  let url = '';
  const handler = createMcpHandler({
    router,
    appUrl: APP_URL,
    selfUrl: () => url,
    allowedHosts: opts.allowedHosts ?? ['localhost', 'mcp.localhost'],
    allowedOrigins: ['http://localhost:8080', APP_URL],
    bodyLimitBytes: opts.bodyLimitBytes ?? 64 * 1024,
  });
  const state = { charged: 0 };
  const server = http.createServer((req, res) => {
    let ctx: ApiContext | undefined;
    const run = async () => {
      const route = router.resolve(req.headers.host, req.url ?? '/');
      if (route.api !== 'mcp') throw new GatewayError('NOT_FOUND');
      const identify = async () => {
        const raw = extractKey(req.headers, route.pathKey);
        if (raw === undefined) return undefined;
        if (raw !== GOOD_KEY) throw new GatewayError('KEY_INVALID');
        return { key, raw };
      };
      ctx = {
        req,
        res,
        route,
        requestId: 'r1',
        identify,
        async admit(cost = 1) {
          const who = await identify();
          if (!who) throw new GatewayError('KEY_MISSING');
          if (state.charged + cost > (opts.budget ?? Infinity)) throw new GatewayError('RATE_LIMITED', undefined, undefined, { 'retry-after': '1' });
          state.charged += cost;
          return who.key;
        },
        readBody: () => readBody(req, 1024 * 1024),
        annotate() {},
      };
      await handler.handle(ctx);
    };
    run().catch((err) => {
      const error = isGatewayError(err) ? err : new GatewayError('INTERNAL');
      if (!isGatewayError(err)) console.error(err);
      if (ctx && !res.headersSent) handler.renderError(error, ctx);
      else if (!res.headersSent) res.writeHead(error.http).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get charged() {
      return state.charged;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One raw MCP POST, as a client that does not use the SDK would send it. */
export async function mcpPost(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A POST with a chosen Host header, which fetch will not send. */
export function postWithHost(url: string, host: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
