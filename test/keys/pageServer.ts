import type { ApiHandler } from '../../src/edge/types.js';
import { loadConfig } from '../../src/config/load.js';
import { CreationBudget } from '../../src/keys/creationBudget.js';
import { describeFreePlan } from '../../src/keys/freePlan.js';
import type { KeysPageOptions } from '../../src/keys/page.js';
import type { KeyStore } from '../../src/keys/store.js';
import { startTestEdge } from '../support/edge.js';

export const MIRROR = { mainnet: 'http://localhost:8080/hedera/api/v1', testnet: 'http://localhost:8080/hedera-testnet/api/v1' };

/** The page as the gateway builds it, with creation budgets that a suite does not reach unless it means to. */
export function pageOptions(store: KeyStore, more: Partial<KeysPageOptions> = {}): KeysPageOptions {
  return {
    store,
    appUrl: 'http://app.localhost:8080',
    mirrorUrlFor: (n) => MIRROR[n],
    rpcUrlFor: (n) => MIRROR[n].replace('/api/v1', '/rpc'),
    freePlan: describeFreePlan(loadConfig({ env: {} })),
    selfService: 'open',
    budget: new CreationBudget({ windowMs: 3_600_000, perClient: 1_000, perWindow: 1_000 }),
    ...more,
  };
}

/** What a browser sends back from the form: its hidden token, and the cookie the GET set. */
export async function openForm(base: string, query = '?name=my-dapp&network=testnet') {
  const res = await fetch(`${base}/keys/new${query}`);
  const html = await res.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  return { res, html, csrf, cookie };
}

export function post(base: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${base}/keys/new`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}


/** Serves the key page behind the real edge on loopback, with the request body capped at `bodyLimit`. */
export async function serveHandler(handler: ApiHandler, bodyLimit = 64 * 1024): Promise<{ url: string; close(): Promise<void> }> {
  const edge = await startTestEdge({ keys: handler }, { overrides: { server: { bodyLimitBytes: bodyLimit } } });
  return { url: edge.url, close: () => edge.close() };
}
