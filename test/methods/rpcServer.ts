/** A tiny real HTTP JSON-RPC server in front of a backend, standing in for the gateway in relay tests. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answer, type CallContext, type RpcBackend } from '../../src/rpc/answer.js';
import { parseBody } from '../../src/rpc/jsonrpc.js';

export async function serveRpc(backend: RpcBackend): Promise<{ url: string; close: () => Promise<void> }> {
  const ctx = { requestId: 'test' } as CallContext;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { body } = await answer(parseBody(Buffer.concat(chunks).toString('utf8'), 1_000), backend, ctx);
    if (body === undefined) res.writeHead(204).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
