/**
 * Mirror-node REST passthrough: `GET /api/v1/...` forwarded with its query string, answered with the upstream's status,
 * content type and body. Client credentials stay at the gateway; the operator's mirror credential may be added.
 */
import { pipeline } from 'node:stream/promises';
import { endInBurst } from '../edge/burstWrites.js';
import type { ApiContext, ApiHandler } from '../edge/types.js';
import type { UpstreamResolver } from '../edge/upstreams.js';
import { GatewayError } from '../errors.js';
import { createAgent, forwardableRequestHeaders, forwardableResponseHeaders, publicBase, requestUpstream, upstreamFailure } from './upstream.js';
import { rewriteNextLinks } from './links.js';

const ALLOWED = 'GET, HEAD';

export function createRestProxy(opts: { upstreams: UpstreamResolver; timeoutMs: number }): ApiHandler {
  const agent = createAgent(opts.timeoutMs);

  return {
    // Called after the edge drained: what is still in flight is abandoned, not waited for.
    close: () => agent.destroy(),
    admission: { key: 'required', cost: 1 },
    screen({ req }) {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new GatewayError('METHOD_NOT_ALLOWED', `use ${ALLOWED}`, undefined, { Allow: ALLOWED });
    },
    async handle(ctx: ApiContext): Promise<void> {
      const { req, res, route } = ctx;
      const method = req.method ?? 'GET';
      const network = route.network;
      if (!network) throw new GatewayError('NOT_FOUND');
      const { mirrorUrl, mirrorApiKey } = await opts.upstreams(network);
      if (!mirrorUrl) throw new GatewayError('UPSTREAM_NOT_CONFIGURED');
      const upstreamBase = mirrorUrl.replace(/\/+$/, '');

      const headers = forwardableRequestHeaders(req.headers);
      if (mirrorApiKey) headers['x-api-key'] = mirrorApiKey;
      const upstream = await requestUpstream(agent, { network: network.id, upstream: 'mirror' }, { ...splitUrl(upstreamBase, route.apiPath), method, headers });

      const outHeaders = forwardableResponseHeaders(upstream.headers);
      const type = String(upstream.headers['content-type'] ?? '');
      // Only JSON list pages carry links.next; everything else streams through untouched.
      const mayLink = method === 'GET' && upstream.statusCode === 200 && type.includes('json') && !upstream.headers['content-encoding'];
      if (!mayLink) {
        res.writeHead(upstream.statusCode, outHeaders);
        await pipeline(upstream.body, res);
        return;
      }
      let text: string;
      try {
        text = await upstream.body.text();
      } catch (err) {
        throw upstreamFailure(err);
      }
      const body = rewriteNextLinks(text, upstreamBase, publicBase(req, route.publicPrefix, route.pathKey));
      res.writeHead(upstream.statusCode, { ...outHeaders, 'content-length': Buffer.byteLength(body) });
      endInBurst(res, body);
    },

    renderError(err: GatewayError, ctx: ApiContext): void {
      const { res } = ctx;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const body = JSON.stringify({ _status: { messages: [{ message: err.message }] } });
      res.writeHead(err.http, { ...err.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      endInBurst(res, ctx.req.method === 'HEAD' ? undefined : body);
    },
  };
}

/** undici wants origin and path apart; an upstream base with a path (`https://host/mirror`) keeps it. */
function splitUrl(base: string, apiPath: string): { origin: string; path: string } {
  const url = new URL(base);
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, '') + apiPath };
}
