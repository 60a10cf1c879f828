/**
 * A plain JSON-RPC 2.0 HTTP endpoint in front of an EIP-1193 requester: what a local node (geth --dev, hardhat node,
 * anvil) serves, answering framing errors and unknown methods in geth's words.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EvmRpcError } from './evm.js';
import { INTERNAL_ERROR, methodNotFound, parseRpcBody, response, type RpcError } from './jsonrpc.js';
import type { EvmRequester } from './ledger/view.js';

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_BATCH = 1_000;
/** EDR's code for a method it does not implement; geth answers those -32601. */
const EDR_UNSUPPORTED_METHOD = -32004;

async function call(evm: EvmRequester, method: string, params: unknown[]): Promise<{ result: unknown } | { error: RpcError }> {
  try {
    return { result: await evm.request({ method, params }) };
  } catch (err) {
    if (!(err instanceof EvmRpcError)) return { error: INTERNAL_ERROR };
    if (err.code === EDR_UNSUPPORTED_METHOD) return { error: methodNotFound(method) };
    return { error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } };
  }
}

/** The answer to a body, or undefined when it held only notifications. */
async function answer(evm: EvmRequester, text: string): Promise<string | undefined> {
  const body = parseRpcBody(text, MAX_BATCH);
  if ('error' in body) return response('null', { error: body.error });
  const parts: string[] = [];
  // In order, one at a time: a batch of dependent calls (send, then read the receipt) must see each other's effects.
  for (const m of body.messages) {
    if (m.kind === 'invalid') {
      if (m.id !== undefined) parts.push(response(m.id, { error: m.error }));
    } else {
      const outcome = await call(evm, m.method, m.params);
      if (m.kind === 'call') parts.push(response(m.id, outcome));
    }
  }
  if (parts.length === 0) return undefined;
  return body.batch ? `[${parts.join(',')}]` : parts[0];
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
  const server = http.createServer(async (req, res) => {
    // geth answers transport errors as plain text with the HTTP status.
    const sendText = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return sendText(405, 'method not allowed');
    }
    try {
      const text = await readBody(req);
      if (text === undefined) return sendText(413, `content length too large (limit ${MAX_BODY_BYTES})`);
      const body = await answer(evm, text);
      if (body === undefined) res.writeHead(204).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } catch {
      res.writeHead(500, { 'content-type': 'application/json' }).end(response('null', { error: INTERNAL_ERROR }));
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
