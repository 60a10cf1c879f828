/**
 * GraphQL passthrough: `POST /v1/graphql` (ledger) and `/beta/graphql` (EVM) forwarded to the network's GraphQL
 * upstream after the plan's guards, and WebSocket subscriptions on the same URL relayed by `SubscriptionRelay`. A query
 * is charged by its cost (guards.ts): ceil(cost / server.graphqlCostPerRequest) requests, at least one.
 */
import { pipeline } from 'node:stream/promises';
import { endInBurst } from '../edge/burstWrites.js';
import type { Config } from '../config/schema.js';
import type { ApiContext, ApiHandler } from '../edge/types.js';
import type { UpstreamResolver } from '../edge/upstreams.js';
import { GatewayError } from '../errors.js';
import { createAgent, forwardableRequestHeaders, forwardableResponseHeaders, requestUpstream } from '../rest/upstream.js';
import type { NetworkRef } from '../edge/route.js';
import type { LogBounds } from '../rpc/logRange.js';
import { checkQuery, graphqlErrorBody, parseGraphqlRequest, priceOf, type GraphqlRequest, type QueryMeasure } from './guards.js';
import { rangeQueries } from './logBounds.js';
import { KeySlots } from '../edge/keySlots.js';
import { StartMeasures, SubscriptionRelay, isInit, isSubscribe, keyFromInitPayload, pickProtocol, type Running } from './subscriptions.js';

export interface GraphqlProxyOptions {
  upstreams: UpstreamResolver;
  timeoutMs: number;
  /** Largest message the upstream socket may send. */
  maxPayloadBytes: number;
  /** Close connections that have had no client message and no running subscription for this long. */
  idleTimeoutMs?: number;
  /**
   * An EVM network's check of a range query's span (`logs` or `blocks`, named in the refusal), the one eth_getLogs meets (tags resolved against the head; the
   * plan's maxLogBlocks, else the network's); undefined for networks without one.
   */
  logRangeFor?(network: NetworkRef): Promise<((field: string, bounds: LogBounds, maxBlocks: number | undefined) => Promise<unknown>) | undefined>;
  /**
   * The price unit of a query's cost, the bound on a socket's unsent bytes and on its wait for connection_init (the
   * plans carry the query limits).
   */
  server: Pick<Config['server'], 'graphqlCostPerRequest' | 'wsMaxBufferedBytes' | 'wsAuthTimeoutMs'>;
}

/** What admission made of a query, for `handle`. */
interface Priced {
  request: GraphqlRequest;
  measure: QueryMeasure;
}

export function createGraphqlProxy(opts: GraphqlProxyOptions): ApiHandler {
  const agent = createAgent(opts.timeoutMs);
  const { server } = opts;
  const connections = new KeySlots<SubscriptionRelay>();
  const subscriptions = new KeySlots<Running>();
  const starts = new StartMeasures(server.graphqlCostPerRequest);

  return {
    // The query is parsed once, judged against the caller's plan and priced by its cost before anything is charged;
    // `handle` forwards the body's bytes as they came.
    admission: {
      prepay: true,
      key: 'required',
      costOfBody(body, ctx, caller) {
        const request = parseGraphqlRequest(body);
        const measure = checkQuery(request, caller!.key.plan);
        ctx.annotate({ graphqlCost: measure.cost });
        ctx.priced = { request, measure } satisfies Priced;
        return priceOf(measure.cost, server.graphqlCostPerRequest);
      },
    },
    screen({ req }) {
      if (req.method !== 'POST') throw new GatewayError('METHOD_NOT_ALLOWED', 'use POST with a JSON body', undefined, { Allow: 'POST' });
    },
    async handle(ctx: ApiContext): Promise<void> {
      const { req, res, route } = ctx;
      const body = await ctx.readBody();
      const network = route.network;
      if (!network) throw new GatewayError('NOT_FOUND');
      const { graphqlUrl } = await opts.upstreams(network);
      if (!graphqlUrl) throw new GatewayError('UPSTREAM_NOT_CONFIGURED', `${network.id} has no GraphQL upstream`);
      const checkRange = await opts.logRangeFor?.(network);
      if (checkRange) {
        const { request, measure } = ctx.priced as Priced;
        const maxBlocks = ctx.caller!.key.plan.maxLogBlocks;
        await Promise.all(rangeQueries(measure.document, request.variables ?? {}).map((q) => checkRange(q.field, q.bounds, maxBlocks)));
      }

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
      endInBurst(res, body);
    },

    async close(): Promise<void> {
      await agent.destroy();
    },

    socket: {
      pickProtocol: (offered) => pickProtocol(offered),
      keyIn: ({ json }) => (isInit(json) ? keyFromInitPayload(json.payload) : undefined),
      costOf: (message, caller) => (isSubscribe(message.json) ? starts.price(message, caller.key.plan) : 0),
      open(session) {
        const network = session.route.network;
        if (!network) return session.close(4404, 'Not found');
        new SubscriptionRelay(session, {
          upstreamUrl: async () => {
            const { graphqlUrl } = await opts.upstreams(network);
            if (!graphqlUrl) throw new GatewayError('UPSTREAM_NOT_CONFIGURED', `${network.id} has no GraphQL upstream`);
            return graphqlUrl;
          },
          timeoutMs: opts.timeoutMs,
          initTimeoutMs: server.wsAuthTimeoutMs,
          maxPayloadBytes: opts.maxPayloadBytes,
          idleTimeoutMs: opts.idleTimeoutMs,
          maxBufferedBytes: server.wsMaxBufferedBytes,
          connections,
          subscriptions,
          starts,
        }).start();
      },
    },
  };
}
