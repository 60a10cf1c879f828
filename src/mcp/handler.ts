import type { Router } from '../edge/route.js';
import type { ApiContext, ApiHandler } from '../edge/types.js';
import { GatewayError } from '../errors.js';
import { serializeResponse, toErrorObject } from '../rpc/jsonrpc.js';
import { onFirstUse } from '../startOnce.js';
import { createHostGuard } from './guard.js';
import { SelfClient } from './selfClient.js';
import { createMcpServerFactory } from './server.js';

export interface McpHandlerOptions {
  router: Router;
  /** Public URL of the app host; the key-creation page is `{appUrl}/keys/new`. */
  appUrl: string;
  /** Loopback base URL of this gateway (`http://127.0.0.1:<port>`), known once it listens; tools call the APIs there. */
  selfUrl: () => string;
  /** Host names the MCP endpoint answers on, such as `mcp.example.com` and `example.com`; ports are ignored. */
  allowedHosts: string[];
  /** Browser origins (or bare host names) allowed to call; ports are ignored. Requests without Origin are not browsers. */
  allowedOrigins: string[];
  bodyLimitBytes: number;
}

/**
 * `/mcp`: the MCP Streamable HTTP transport, stateless (a server and transport per request) so any instance can answer
 * any request. A request with a key is charged like any other and refused at the HTTP level (401/403/429) like any
 * other; without a key only get_api_key_link does anything. Tools reach the chains through the gateway's own APIs.
 */
export function createMcpHandler(opts: McpHandlerOptions): ApiHandler {
  const guard = createHostGuard(opts.allowedHosts, opts.allowedOrigins);
  const client = new SelfClient(opts.selfUrl);
  const servers = onFirstUse(() => createMcpServerFactory(opts.router));
  return {
    // The key is optional (get_api_key_link needs none); with one, each message of a batch is a request.
    admission: {
      key: 'optional',
      prepay: true,
      bodyLimit: opts.bodyLimitBytes,
      costOfBody(body, ctx) {
        const message = parseMessage(body);
        ctx.priced = message;
        return Array.isArray(message) ? Math.max(1, message.length) : 1;
      },
    },
    screen(ctx) {
      guard(ctx.req.headers);
      if (ctx.req.method !== 'POST') {
        throw new GatewayError('METHOD_NOT_ALLOWED', 'this MCP endpoint is stateless: POST JSON-RPC messages (no GET stream, no session)', undefined, { allow: 'POST' });
      }
    },
    async handle(ctx) {
      const message = ctx.priced;
      ctx.annotate({ mcp: describe(message) });
      const factory = await servers.get();
      const server = factory.forRequest({ router: opts.router, appUrl: opts.appUrl, client, requestId: ctx.requestId, caller: ctx.caller });
      const transport = factory.transport();
      ctx.res.once('close', () => void server.close());
      await server.connect(transport);
      await transport.handleRequest(ctx.req, ctx.res, message);
    },
    renderError(err, ctx) {
      const body = serializeResponse('null', { error: toErrorObject(err) });
      ctx.res.writeHead(err.http, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...err.headers });
      ctx.res.end(body);
    },
  };
}

function parseMessage(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new GatewayError('PARSE_ERROR');
  }
}

/** For the log line: the MCP method and tool name, never arguments (they may carry anything). */
function describe(message: unknown): string[] {
  const messages = Array.isArray(message) ? message : [message];
  return messages.slice(0, 10).map((m) => {
    const { method, params } = (m ?? {}) as { method?: unknown; params?: { name?: unknown } };
    const name = method === 'tools/call' && typeof params?.name === 'string' ? `:${params.name.slice(0, 64)}` : '';
    return typeof method === 'string' ? method.slice(0, 64) + name : 'response';
  });
}
