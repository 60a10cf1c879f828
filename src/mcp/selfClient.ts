import { Agent, request } from 'undici';
import { isSafeNumber, parse } from 'lossless-json';
import { redactText } from '../log.js';

/** A refusal or error from one of the gateway's own APIs, worded for an agent; never holds the key. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
}

export interface SelfCall {
  /** The caller's raw key, sent on as X-API-KEY so the call is authenticated and charged like any other. */
  key: string;
  requestId: string;
}

export interface JsonRpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * Calls the gateway's own public APIs over loopback (bare-domain path form), so auth, budget, quota, relay access
 * and error conventions are exactly those of the APIs.
 */
export class SelfClient {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

  constructor(private readonly selfUrl: () => string) {}

  async rpc(networkId: string, body: unknown, call: SelfCall): Promise<JsonRpcAnswer | JsonRpcAnswer[]> {
    const { status, json } = await this.send('POST', `/${networkId}/rpc`, call, body);
    // JSON-RPC errors in a 200 are the caller's to interpret; anything else ended the request at the edge.
    if (status !== 200) throw new ToolFailure(describe(status, json, call.key));
    return json as JsonRpcAnswer | JsonRpcAnswer[];
  }

  async rest(networkId: string, apiPath: string, call: SelfCall): Promise<unknown> {
    const { status, json } = await this.send('GET', `/${networkId}${apiPath}`, call);
    if (status !== 200) throw new ToolFailure(describe(status, json, call.key));
    return json;
  }

  async graphql(networkId: string, body: { query: string; variables?: unknown }, call: SelfCall): Promise<{ data?: unknown; errors?: unknown[] }> {
    const { status, json } = await this.send('POST', `/${networkId}/v1/graphql`, call, body);
    const answer = json as { data?: unknown; errors?: unknown[] } | undefined;
    // GraphQL may answer partial data with errors; only an answer without data is a failure.
    if (status !== 200 && (answer?.data === undefined || answer.data === null)) throw new ToolFailure(describe(status, json, call.key));
    return answer ?? {};
  }

  private resolve(path: string): URL {
    return new URL(path, this.selfUrl());
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async send(method: 'GET' | 'POST', path: string, call: SelfCall, body?: unknown): Promise<{ status: number; json: unknown }> {
    const res = await request(this.resolve(path), {
      method,
      dispatcher: this.agent,
      headers: {
        'x-api-key': call.key,
        'x-request-id': call.requestId,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, json: parseExact(text) };
  }
}

/** JSON with integers beyond 2^53 kept exact as strings (ledger balances in tinybar can pass it). */
export function parseExact(text: string): unknown {
  if (text === '') return undefined;
  try {
    return parse(text, undefined, (n) => (isSafeNumber(n) ? Number(n) : n));
  } catch {
    return text;
  }
}

/** A gateway answer that ended the request, as one line an agent can act on. */
function describe(status: number, json: unknown, key: string): string {
  const message = scrub(messageOf(json) ?? `HTTP ${status}`, key);
  if (status === 401) return `The API key was not accepted (HTTP 401): ${message}`;
  if (status === 403) return `Not allowed for this key (HTTP 403): ${message}`;
  if (status === 429) return `Rate limited (HTTP 429): ${message}. Wait a moment and try again.`;
  return `The gateway answered HTTP ${status}: ${message}`;
}

/** The message in any of the gateway's error conventions: JSON-RPC, GraphQL, mirror-node REST or plain. */
function messageOf(json: unknown): string | undefined {
  const first = Array.isArray(json) ? json[0] : json;
  if (typeof first === 'string') return first.slice(0, 500);
  if (!first || typeof first !== 'object') return undefined;
  const o = first as Record<string, any>;
  const candidates = [o.error?.message, o.errors?.[0]?.message, o._status?.messages?.[0]?.message, o.message];
  return candidates.find((c): c is string => typeof c === 'string');
}

export function scrub(text: string, key: string): string {
  return redactText(key ? text.split(key).join('***') : text);
}
