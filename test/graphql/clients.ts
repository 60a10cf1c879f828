/** Real GraphQL WebSocket clients for tests: graphql-ws (graphql-transport-ws) and subscriptions-transport-ws (legacy graphql-ws). */
import { createClient, type Client } from 'graphql-ws';
import { SubscriptionClient } from 'subscriptions-transport-ws';
import WebSocket from 'ws';

export type Result = { data?: any; errors?: any[] };

/** A stream of results with a way to wait for the next one that satisfies a condition. */
export class Collected {
  readonly results: Result[] = [];
  error?: unknown;
  completed = false;
  private waiters: Array<() => void> = [];

  push(r: Result) {
    this.results.push(r);
    this.wake();
  }
  fail(err: unknown) {
    this.error = err;
    this.wake();
  }
  complete() {
    this.completed = true;
    this.wake();
  }
  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }
  /** Resolves with the first result matching `test`, or rejects when the stream ends without one. */
  async until(test: (r: Result) => boolean): Promise<Result> {
    for (;;) {
      const found = this.results.find(test);
      if (found) return found;
      if (this.error) throw this.error instanceof Error ? this.error : new Error(JSON.stringify(this.error));
      if (this.completed) throw new Error(`stream completed without a matching result: ${JSON.stringify(this.results)}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

export interface ModernConnection {
  client: Client;
  /** Close code and reason once the socket closed. */
  closed: Promise<{ code: number; reason: string }>;
  subscribe(query: string): Collected;
}

export function modernClient(url: string, connectionParams?: Record<string, unknown>, headers?: Record<string, string>): ModernConnection {
  let onClosed!: (v: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  const Impl = class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  };
  const client = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: Impl,
    connectionParams,
    retryAttempts: 0,
    lazy: false,
    // Tests read refusals from `closed`; the default handler would print the close event.
    onNonLazyError: () => {},
    on: { closed: (e) => onClosed({ code: (e as CloseEvent).code, reason: String((e as CloseEvent).reason) }) },
  });
  return {
    client,
    closed,
    subscribe(query) {
      const out = new Collected();
      client.subscribe({ query }, { next: (r) => out.push(r as Result), error: (e) => out.fail(e), complete: () => out.complete() });
      return out;
    },
  };
}

export interface LegacyConnection {
  client: SubscriptionClient;
  subscribe(query: string): Collected;
  close(): void;
}

export function legacyClient(url: string, connectionParams?: Record<string, unknown>): LegacyConnection {
  const client = new SubscriptionClient(url.replace(/^http/, 'ws'), { reconnect: false, connectionParams }, WebSocket);
  return {
    client,
    subscribe(query) {
      const out = new Collected();
      client.request({ query }).subscribe({ next: (r) => out.push(r as Result), error: (e) => out.fail(e), complete: () => out.complete() });
      return out;
    },
    close: () => client.close(),
  };
}

/** POSTs a GraphQL query; returns status and parsed body. */
export async function postGraphql(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}
