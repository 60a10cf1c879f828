/**
 * The ledger sandbox's mirror-node REST stand-in: the endpoints the relay and users need, served from a LedgerView
 * over plain `node:http` (the relay benchmark leans on it), answering in the real mirror node's shapes and errors.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { badRequest, notFound } from './errors.js';
import type { LedgerView } from '../ledger/view.js';
import { accountRoutes } from './accounts.js';
import { accountTokenRoutes } from './accountTokens.js';
import { balanceRoutes } from './balances.js';
import { blockRoutes } from './blocks.js';
import { callRoutes } from './call.js';
import { contractResultRoutes } from './contractResults.js';
import { contractRoutes } from './contracts.js';
import { errorReply, readJson, sendJson, type Route } from './http.js';
import { logRoutes } from './logs.js';
import { networkRoutes } from './network.js';
import { EthRecords } from './records.js';
import { tokenRoutes } from './tokens.js';
import { traceRoutes } from './traces.js';
import { transactionRoutes } from './transactions.js';

export interface MirrorNode {
  /** Base URL, e.g. `http://127.0.0.1:5551`; the API is under `/api/v1`. */
  url: string;
  close(): Promise<void>;
}

function routesFor(view: LedgerView, records: EthRecords): Route[] {
  // Literal paths before the parameterised ones they would otherwise match (`/contracts/results/logs`).
  return [
    ...logRoutes(view, records),
    ...traceRoutes(view),
    ...callRoutes(view),
    ...contractResultRoutes(view, records),
    ...contractRoutes(view, records),
    ...blockRoutes(view),
    ...accountRoutes(view),
    ...accountTokenRoutes(view),
    ...balanceRoutes(view),
    ...transactionRoutes(view),
    ...tokenRoutes(view),
    ...networkRoutes(view),
  ];
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('Bad request: malformed percent-encoding in the path');
  }
}

export interface MirrorNodeOptions {
  host?: string;
  port?: number;
  /** Where unexpected failures (answered 500) are reported; console.error by default. */
  onError?: (err: unknown) => void;
}

async function dispatch(routes: Route[], req: http.IncomingMessage, res: http.ServerResponse, onError: (err: unknown) => void): Promise<void> {
  try {
    const url = new URL(req.url ?? '/', 'http://mirror');
    const path = url.pathname.replace(/\/+$/, '');
    // The real node answers HEAD wherever it answers GET (Node leaves the body off a HEAD's answer).
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    for (const route of routes) {
      if (route.method !== method) continue;
      const m = route.pattern.exec(path);
      if (!m) continue;
      const params = m.slice(1).map(decodeSegment);
      const body = route.method === 'POST' ? await readJson(req) : undefined;
      sendJson(res, 200, await route.handle({ path, search: url.searchParams, params, body }));
      return;
    }
    throw notFound();
  } catch (err) {
    const { status, body } = errorReply(err);
    if (status === 500) onError(err);
    sendJson(res, status, body);
  }
}

export async function startMirrorNode(view: LedgerView, opts: MirrorNodeOptions = {}): Promise<MirrorNode> {
  const onError = opts.onError ?? ((err: unknown) => console.error('mirror node stand-in:', err));
  const records = new EthRecords(view);
  const routes = routesFor(view, records);
  const server = http.createServer((req, res) => void dispatch(routes, req, res, onError));
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // Index each block's transactions as it closes, as the real node's importer does, so queries do not wait for it.
  const index = () => void records.logs().catch(() => undefined);
  view.on('block', index);
  index();
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        view.off('block', index);
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive clients (the relay's pool) would otherwise hold the server open.
        server.closeAllConnections();
      }),
  };
}
