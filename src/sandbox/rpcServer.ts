/**
 * A plain JSON-RPC 2.0 HTTP endpoint in front of an EIP-1193 requester: what a local node (hardhat node, anvil) serves.
 * Parsing and serialization are the gateway's own (ids echoed byte-for-byte, batches answered in order).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { answer, type CallContext, type RpcBackend } from '../rpc/answer.js';
import { errorObject, parseBody, serializeResponse, type RpcOutcome } from '../rpc/jsonrpc.js';
import { EvmRpcError } from './evm.js';
import type { EvmRequester } from './ledger/view.js';

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_BATCH = 1_000;

function backendFor(evm: EvmRequester): RpcBackend {
  return {
    async handle(calls) {
      const outcomes: RpcOutcome[] = [];
      // In order, one at a time: a batch of dependent calls (send, then read the receipt) must see each other's effects.
      for (const call of calls) {
        try {
          outcomes.push({ result: await evm.request({ method: call.method, params: call.params as unknown[] }) });
        } catch (err) {
          outcomes.push({
            error:
              err instanceof EvmRpcError
                ? { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) }
                : errorObject('INTERNAL'),
          });
        }
      }
      return outcomes;
    },
  };
}

function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) resolve(undefined);
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export interface RpcHttpServer {
  url: string;
  close(): Promise<void>;
}

export async function serveJsonRpc(evm: EvmRequester, opts: { host?: string; port?: number } = {}): Promise<RpcHttpServer> {
  const backend = backendFor(evm);
  // The devnet backend reads nothing from the gateway's per-request context.
  const ctx = { requestId: 'sandbox' } as CallContext;
  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    };
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return send(405, serializeResponse('null', { error: errorObject('METHOD_NOT_ALLOWED') }));
    }
    try {
      const text = await readBody(req);
      if (text === undefined) return send(413, serializeResponse('null', { error: errorObject('BODY_TOO_LARGE') }));
      const body = await answer(parseBody(text, MAX_BATCH), backend, ctx);
      if (body === undefined) res.writeHead(204).end();
      else send(200, body);
    } catch {
      send(500, serializeResponse('null', { error: errorObject('INTERNAL') }));
    }
  });
  server.keepAliveTimeout = 5_000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
