/**
 * GraphQL passthrough: `POST /v1/graphql` (ledger) and `/beta/graphql` (EVM) forwarded to the network's GraphQL
 * upstream after the plan's guards, and WebSocket subscriptions on the same URL relayed by `SubscriptionRelay`.
 */
import { pipeline } from 'node:stream/promises';
import { WebSocketServer } from 'ws';
import type { ApiContext, ApiHandler, UpgradeContext } from '../edge/types.js';
import type { UpstreamResolver } from '../edge/upstreams.js';
import { GatewayError } from '../errors.js';
import type { KeyVerifier } from '../keys/types.js';
import { createAgent, forwardableRequestHeaders, forwardableResponseHeaders, requestUpstream } from '../rest/upstream.js';
import { checkQuery, graphqlErrorBody, parseGraphqlRequest } from './guards.js';
import { ConnectionCounter, PROTOCOLS, SubscriptionRelay, pickProtocol } from './subscriptions.js';

export interface GraphqlProxyOptions {
  upstreams: UpstreamResolver;
  timeoutMs: number;
  verify: KeyVerifier;
  /** How often an open connection's key is verified again; with the verifier's cache this bounds revocation. */
  revocationCheckMs: number;
  /** Close connections that have had no client message and no running subscription for this long. */
  idleTimeoutMs?: number;
}

/** How long open subscriptions get to close cleanly at shutdown. */
const SHUTDOWN_CLOSE_MS = 2_000;

export function createGraphqlProxy(opts: GraphqlProxyOptions): ApiHandler {
  const agent = createAgent(opts.timeoutMs);
  const connections = new ConnectionCounter();
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => pickProtocol(offered) ?? false });

  return {
    async handle(ctx: ApiContext): Promise<void> {
      const { req, res, route } = ctx;
      if (req.method !== 'POST') throw new GatewayError('METHOD_NOT_ALLOWED', 'use POST with a JSON body', undefined, { Allow: 'POST' });
      const key = await ctx.admit(1);
      const body = await ctx.readBody();
      checkQuery(parseGraphqlRequest(body).query, key.plan);
      const network = route.network;
      if (!network) throw new GatewayError('NOT_FOUND');
      const { graphqlUrl } = await opts.upstreams(network);
      if (!graphqlUrl) throw new GatewayError('UPSTREAM_NOT_CONFIGURED', `${network.id} has no GraphQL upstream`);

      const url = new URL(graphqlUrl);
      const upstream = await requestUpstream(agent, { network: network.id, upstream: 'graphql' }, {
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { ...forwardableRequestHeaders(req.headers), 'content-type': 'application/json' },
        // The client's bytes go on unchanged, so large numbers in variables keep their precision.
        body,
      });
      res.writeHead(upstream.statusCode, forwardableResponseHeaders(upstream.headers));
      await pipeline(upstream.body, res);
    },

    renderError(err: GatewayError, ctx: ApiContext): void {
      const { res } = ctx;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const body = JSON.stringify(graphqlErrorBody(err));
      res.writeHead(err.http, { ...err.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    },

    async close(): Promise<void> {
      for (const client of wss.clients) client.close(1001, 'Server shutting down');
      // Clients that do not answer the close frame within the bound are cut off.
      await new Promise((r) => setTimeout(r, wss.clients.size > 0 ? SHUTDOWN_CLOSE_MS : 0));
      for (const client of wss.clients) client.terminate();
      wss.close();
      await agent.destroy();
    },

    async upgrade(ctx: UpgradeContext): Promise<void> {
      const offered = new Set(String(ctx.req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()));
      if (!pickProtocol(offered)) throw new GatewayError('BAD_REQUEST', `offer the WebSocket subprotocol ${PROTOCOLS.join(' or ')}`);
      const network = ctx.route.network;
      if (!network) throw new GatewayError('NOT_FOUND');
      wss.handleUpgrade(ctx.req, ctx.socket, ctx.head, (socket) => {
        new SubscriptionRelay(socket, ctx, {
          upstreamUrl: async () => {
            const { graphqlUrl } = await opts.upstreams(network);
            if (!graphqlUrl) throw new GatewayError('UPSTREAM_NOT_CONFIGURED', `${network.id} has no GraphQL upstream`);
            return graphqlUrl;
          },
          timeoutMs: opts.timeoutMs,
          verify: opts.verify,
          revocationCheckMs: opts.revocationCheckMs,
          idleTimeoutMs: opts.idleTimeoutMs,
          connections,
        }).start();
      });
    },
  };
}
