/**
 * The public listener's HTTP server: how long a client may take to send a request, and how many connections one
 * address may hold open, so slow or idle connections from one client cannot take the file descriptors and memory
 * everyone else needs.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { Counter } from 'prom-client';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import { registry } from '../metrics.js';
import { rawJsonError } from './plainError.js';
import { tarpitOf, type Tarpit } from './tarpit.js';

export const refusedConnections = new Counter({
  name: 'gateway_connections_refused_total',
  help: 'Connections to the public listener answered 429 and closed because their address already held server.maxConnectionsPerClient',
  registers: [registry],
});

/**
 * A server whose header, request and keep-alive timeouts come from the config, bounding connections per address; a
 * refused connection waits in `tarpit` (the edge's, so that one bound holds every kind of held refusal).
 */
export function createPublicServer(config: Config['server'], tarpit = tarpitOf(config)): http.Server {
  const server = http.createServer({
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Node checks the two timeouts every 30 s by default, which would let a slow client hold on for up to 30 s more.
    connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
  });
  // Behind a trusted proxy (clientIpHeader set) every connection comes from the proxy: bounding its address would cap
  // the whole gateway, so the bound is the proxy's to keep there.
  if (config.maxConnectionsPerClient > 0 && !config.clientIpHeader) boundConnectionsPerClient(server, config.maxConnectionsPerClient, tarpit);
  return server;
}

/**
 * Counts open connections by remote address; one past `max` is held unread in the tarpit, then answered 429 and
 * closed. The HTTP server's own connection listener runs only for connections under the bound, so a refused one never
 * reaches its parser and no request on it is ever handled. Held, it is not counted: the tarpit bounds those.
 */
function boundConnectionsPerClient(server: http.Server, max: number, tarpit: Tarpit): void {
  const open = new Map<string, number>();
  const [serveHttp] = server.listeners('connection') as Array<(socket: Socket) => void>;
  // Made once: a client past its bound may be reconnecting thousands of times a second.
  const refusal = Buffer.from(rawJsonError(new GatewayError('CONNECTIONS_PER_CLIENT', `at most ${max} at once`, undefined, { 'retry-after': '1' })));
  server.removeListener('connection', serveHttp);
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const held = open.get(address) ?? 0;
    if (held >= max) {
      refusedConnections.inc();
      // A client that resets the connection while it is held must not make the later write throw.
      socket.on('error', destroySelf);
      tarpit.hold('connection', () => refuse(socket, refusal));
      return;
    }
    open.set(address, held + 1);
    socket.once('close', () => {
      const left = open.get(address)! - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
    serveHttp.call(server, socket);
  });
}

function refuse(socket: Socket, answer: Buffer): void {
  if (socket.destroyed) return;
  // Whatever the client sent is read and dropped, so closing after the answer is a clean close, not a reset that
  // could discard the answer.
  socket.resume();
  socket.end(answer);
  socket.once('finish', destroySelf);
}

/** One listener for every refused socket rather than a closure each. */
function destroySelf(this: Socket): void {
  this.destroy();
}
