/** What REST and GraphQL passthrough share about talking to an upstream over HTTP. */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { GatewayError, hidingCause } from '../errors.js';
import { redactText } from '../log.js';
import { recordUpstream } from '../metrics.js';

/** One keep-alive agent per proxy; its per-origin pools are reused across requests. */
export function createAgent(timeoutMs: number): Agent {
  return new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs, keepAliveTimeout: 30_000 });
}

/** One upstream request, timed and counted under `labels`; a failure to get an answer becomes 502 or 504. */
export async function requestUpstream(
  agent: Agent,
  labels: { network: string; upstream: string },
  options: Dispatcher.RequestOptions,
): Promise<Dispatcher.ResponseData> {
  const started = performance.now();
  let outcome = 'error';
  try {
    const res = await agent.request(options);
    outcome = String(res.statusCode);
    return res;
  } catch (err) {
    throw upstreamFailure(err);
  } finally {
    recordUpstream(labels, (performance.now() - started) / 1000, outcome);
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** Maps a failed upstream call to 504 (slow) or 502 (down); what failed where goes to the log only. */
export function upstreamFailure(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  const cause = redactText(String((err as Error).message ?? err));
  return hidingCause(code && TIMEOUT_CODES.has(code) ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE', cause);
}

/** Request headers a client may pass on; credentials (X-API-KEY, Authorization, cookies) are never among them. */
const FORWARDED_REQUEST = ['accept', 'accept-language', 'if-none-match', 'if-modified-since', 'user-agent'];

export function forwardableRequestHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** Response headers passed back unchanged; hop-by-hop headers and cookies stay behind. */
const FORWARDED_RESPONSE = ['content-type', 'content-encoding', 'cache-control', 'etag', 'last-modified', 'expires', 'vary', 'link'];

export function forwardableResponseHeaders(headers: Record<string, string | string[] | undefined>): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const name of FORWARDED_RESPONSE) {
    const value = headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The public base a client used, for links it should follow: scheme and Host of the request, the route's prefix, and the key only if the client put it in the path. */
export function publicBase(req: { headers: IncomingHttpHeaders; socket: unknown }, publicPrefix: string, pathKey?: string): string {
  const forwarded = String(req.headers['x-forwarded-proto'] ?? '').split(',')[0].trim();
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const prefix = pathKey ? publicPrefix.replace('/v1/***', `/v1/${encodeURIComponent(pathKey)}`) : publicPrefix;
  return `${scheme}://${req.headers.host ?? 'localhost'}${prefix}`;
}
