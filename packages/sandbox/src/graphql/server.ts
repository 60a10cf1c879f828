/**
 * Serves one GraphQL schema on one path: `POST` for queries, and WebSocket subscriptions on the same URL in either
 * `graphql-transport-ws` (graphql-ws) or the legacy `graphql-ws` subprotocol, picked from Sec-WebSocket-Protocol.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { parse, validate, execute, GraphQLError, type GraphQLSchema } from 'graphql';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { LEGACY_PROTOCOL, serveLegacy } from './legacyWs.js';

export interface StandIn {
  url: string;
  close(): Promise<void>;
}

/** `rootValue` serves schemas built from SDL, whose resolvers are the root object's fields. */
export async function serveGraphql(schema: GraphQLSchema, path: string, opts: { host?: string; port?: number } = {}, rootValue?: unknown): Promise<StandIn> {
  const server = http.createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] !== path) return reply(res, 404, { errors: [{ message: 'Not found' }] });
    if (req.method !== 'POST') return reply(res, 405, { errors: [{ message: 'Use POST' }] });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: { query?: unknown; variables?: Record<string, unknown> | null; operationName?: string | null };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(res, 400, { errors: [{ message: 'Body is not JSON' }] });
      }
      if (typeof body?.query !== 'string') return reply(res, 400, { errors: [{ message: 'Body needs a "query" string' }] });
      let document;
      try {
        document = parse(body.query);
      } catch (err) {
        return reply(res, 200, { errors: [(err as GraphQLError).toJSON()] });
      }
      const errors = validate(schema, document);
      if (errors.length) return reply(res, 200, { errors: errors.map((e) => e.toJSON()) });
      const result = await execute({ schema, document, rootValue, variableValues: body.variables ?? undefined, operationName: body.operationName ?? undefined });
      reply(res, 200, result);
    });
  });

  const modern = new WebSocketServer({ noServer: true });
  const modernServer = useServer({ schema, roots: rootValue ? { query: rootValue as Record<string, never> } : undefined }, modern);
  const legacy = new WebSocketServer({ noServer: true, handleProtocols: (offered) => (offered.has(LEGACY_PROTOCOL) ? LEGACY_PROTOCOL : false) });
  legacy.on('connection', (socket) => serveLegacy(socket, schema, rootValue));

  server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] !== path) return socket.destroy();
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const target = offered.includes(LEGACY_PROTOCOL) && !offered.includes('graphql-transport-ws') ? legacy : modern;
    target.handleUpgrade(req, socket, head, (ws) => target.emit('connection', ws, req));
  });

  // WebSocket sockets leave the server's HTTP bookkeeping once upgraded; close() ends them itself.
  const sockets = new Set<Duplex>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  // A fixed port someone else holds fails the start instead of crashing the process.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const ws of [...legacy.clients, ...modern.clients]) ws.terminate();
      await modernServer.dispose();
      await new Promise<void>((resolve) => legacy.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
