import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayError, isGatewayError } from '../../src/errors.js';
import type { ApiContext, ApiHandler } from '../../src/edge/types.js';

/**
 * Serves one API handler on loopback the way the edge does for the app host: the path is the API path, errors
 * thrown by `handle` are rendered by the handler's `renderError`, bodies are capped.
 */
export async function serveHandler(handler: ApiHandler, bodyLimit = 64 * 1024): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const ctx: ApiContext = {
      req,
      res,
      route: { api: 'keys', apiPath: url, publicPrefix: '' },
      requestId: 'test',
      admit: () => Promise.reject(new GatewayError('KEY_MISSING')),
      identify: () => Promise.resolve(undefined),
      readBody: () => readCapped(req, bodyLimit),
      annotate: () => {},
    };
    handler.handle(ctx).catch((err) => handler.renderError(isGatewayError(err) ? err : new GatewayError('INTERNAL'), ctx));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readCapped(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new GatewayError('BODY_TOO_LARGE');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
