import http from 'node:http';
import type { ConfigInput } from '../../src/config/schema.js';
import { createMcpHandler } from '../../src/mcp/handler.js';
import { startTestEdge } from '../support/edge.js';

export const APP_URL = 'https://app.example.test';

export interface Harness {
  url: string;
  /** A free-plan key. */
  key: string;
  /** Requests charged to that key so far. */
  readonly charged: number;
  close(): Promise<void>;
}

/**
 * The MCP handler alone behind the real edge on loopback, with a free-plan key whose per-second budget (10) does not
 * refill: the clock of the limiter and of the keyless budget stands still. For what does not need the gateway's other APIs.
 */
export async function startHarness(opts: { bodyLimitBytes?: number; allowedHosts?: string[]; overrides?: Partial<ConfigInput> } = {}): Promise<Harness> {
  let url = '';
  const frozen = Date.now();
  const edge = await startTestEdge(
    (router) => ({
      mcp: createMcpHandler({
        router,
        appUrl: APP_URL,
        selfUrl: () => url,
        allowedHosts: opts.allowedHosts ?? ['localhost', 'mcp.localhost'],
        allowedOrigins: ['http://localhost:8080', APP_URL],
        bodyLimitBytes: opts.bodyLimitBytes ?? 64 * 1024,
      }),
    }),
    { overrides: { sandbox: { enabled: true }, ...opts.overrides }, now: () => frozen },
  );
  url = edge.url;
  const { raw, id } = await edge.addKey('free');
  return {
    url,
    key: raw,
    get charged() {
      return edge.charged.get(id) ?? 0;
    },
    close: () => edge.close(),
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
