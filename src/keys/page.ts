import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';
import type { ApiContext, ApiHandler } from '../edge/types.js';
import { clientAddress } from '../edge/clientAddress.js';
import { GatewayError, isGatewayError } from '../errors.js';
import { CreationBudget, keyCreations } from './creationBudget.js';
import { createdPage, errorPage, formPage } from './pageHtml.js';
import { onFirstUse } from '../startOnce.js';
import { KEY_NETWORKS, type KeyNetwork, type KeyStore } from './store.js';

export interface KeysPageOptions {
  store: KeyStore;
  /** Public URL of the app host; a form posted from its origin is accepted. */
  appUrl: string;
  /** The ledger chain's REST base for the snippet, ending in /api/v1. */
  mirrorUrlFor(network: 'mainnet' | 'testnet'): string;
  /** The ledger chain's JSON-RPC URL for the snippet. */
  rpcUrlFor(network: 'mainnet' | 'testnet'): string;
  /** What a free key includes, in a sentence or two (see describeFreePlan). */
  freePlan: string;
  /** `closed` turns the page away: keys then come from the operator. */
  selfService: 'open' | 'closed';
  budget: CreationBudget;
  /** The header a trusted proxy sets to the client address, when the operator names one. */
  clientIpHeader?: string;
}

const CSRF_COOKIE = 'keys_csrf';
const MAX_NAME = 100;
const MAX_EMAIL = 254;

/**
 * The key-creation page on the app host: GET /keys/new shows a prefilled form, POST /keys/new creates an account with
 * a free key and shows the key once, in the response body only (never a redirect or a URL).
 * Cross-site posts are refused by a double-submit token (SameSite=Strict cookie equal to a hidden field) and, when
 * the browser sends one, an Origin that must be this page's own.
 */
export function createKeysPage(opts: KeysPageOptions): ApiHandler {
  const contexts = new WeakMap<IncomingMessage, ApiContext>();
  // Express (about 10 MB resident with its dependencies) loads on the first visit to the page.
  const routes = onFirstUse(async () => keysRoutes((await import('express')).default(), opts, contexts));

  return {
    admission: { key: 'none' },
    async handle(ctx) {
      const app = await routes.get();
      // A client gone while the first visit loaded Express: its 'close' has passed and would never be seen below.
      if (ctx.res.closed) return;
      return new Promise<void>((resolve, reject) => {
        contexts.set(ctx.req, ctx);
        ctx.res.once('close', () => resolve());
        // Express routes on the API path: path-key and network prefixes are the edge's business. Errors thrown by
        // the routes (sync or async) reach the final callback, and the edge renders them with renderError.
        ctx.req.url = ctx.route.apiPath;
        app(ctx.req as Request, ctx.res as Response, (err?: unknown) => reject(err ?? new GatewayError('NOT_FOUND', 'the key page is /keys/new')));
      });
    },
    renderError(err, ctx) {
      for (const [h, v] of Object.entries(err.headers ?? {})) ctx.res.setHeader(h, v);
      send(ctx.res, err.http, errorPage(err.http, err.message));
    },
  };
}

function keysRoutes(app: Express, opts: KeysPageOptions, contexts: WeakMap<IncomingMessage, ApiContext>): Express {
  const appOrigin = new URL(opts.appUrl).origin;
  const secureCookie = appOrigin.startsWith('https:');
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use('/keys/new', (req, _res, next) => {
    if (opts.selfService === 'closed') {
      if (req.method === 'POST') keyCreations.inc({ outcome: 'refused_closed' });
      throw new GatewayError('KEY_CREATION_CLOSED');
    }
    next();
  });

  app.get('/keys/new', (req, res) => {
    const name = single(req.query.name) ?? '';
    if (name.length > MAX_NAME) throw new GatewayError('BAD_REQUEST', `the project name is longer than ${MAX_NAME} characters`);
    const network = parseNetwork(single(req.query.network) ?? 'testnet');
    // Reusing the browser's token keeps a form in another tab of the same browser submittable.
    const kept = cookieValue(req.headers.cookie, CSRF_COOKIE);
    const csrf = kept && /^[A-Za-z0-9_-]{43}$/.test(kept) ? kept : randomBytes(32).toString('base64url');
    res.setHeader('set-cookie', `${CSRF_COOKIE}=${csrf}; Path=/keys/; HttpOnly; SameSite=Strict${secureCookie ? '; Secure' : ''}`);
    send(res, 200, formPage({ name, network, csrf, freePlan: opts.freePlan }));
  });

  app.post('/keys/new', async (req, res) => {
    const ctx = contexts.get(req)!;
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      throw new GatewayError('UNSUPPORTED_MEDIA', 'submit the form on /keys/new');
    }
    const form = new URLSearchParams((await ctx.readBody()).toString('utf8'));
    checkSameOrigin(req, form.get('csrf') ?? '', appOrigin);
    const name = (form.get('name') ?? '').trim();
    if (!name || name.length > MAX_NAME) throw new GatewayError('BAD_REQUEST', `the project name must be 1 to ${MAX_NAME} characters`);
    const network = parseNetwork(form.get('network') ?? '');
    const email = (form.get('email') ?? '').trim() || undefined;
    if (email && (email.length > MAX_EMAIL || !/^[^\s@]+@[^\s@]+$/.test(email))) throw new GatewayError('BAD_REQUEST', 'the email address is not valid');
    opts.budget.take(clientAddress(req, opts.clientIpHeader));
    const { key, record } = await opts.store.createKey({ account: { name, email }, name, plan: 'free', network }).catch((err: unknown) => {
      if (isGatewayError(err) && err.errorName === 'KEYS_PER_ACCOUNT') keyCreations.inc({ outcome: 'refused_account' });
      throw err;
    });
    keyCreations.inc({ outcome: 'created' });
    ctx.annotate({ keyId: record.id, created: true });
    const nonce = randomBytes(16).toString('base64');
    send(res, 200, createdPage({ name, keyId: record.id, key, mirrorUrl: opts.mirrorUrlFor(network), rpcUrl: opts.rpcUrlFor(network), freePlan: opts.freePlan, nonce }), nonce);
  });

  app.all('/keys/new', () => {
    throw new GatewayError('METHOD_NOT_ALLOWED', 'use GET or POST');
  });
  return app;
}

function single(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function parseNetwork(value: string): KeyNetwork {
  if ((KEY_NETWORKS as readonly string[]).includes(value)) return value as KeyNetwork;
  throw new GatewayError('BAD_REQUEST', `network must be mainnet or testnet, not "${value.slice(0, 40)}"`);
}

function checkSameOrigin(req: IncomingMessage, field: string, appOrigin: string): void {
  const cookie = cookieValue(req.headers.cookie, CSRF_COOKIE) ?? '';
  const a = Buffer.from(cookie);
  const b = Buffer.from(field);
  if (!cookie || a.length !== b.length || !timingSafeEqual(a, b)) throw new GatewayError('FORM_REFUSED');
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== appOrigin && origin !== `http://${req.headers.host}` && origin !== `https://${req.headers.host}`) {
    throw new GatewayError('FORM_REFUSED');
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Pages carry a key or a form token: never cached, never framed. The referrer stays same-origin (not no-referrer):
 * under no-referrer browsers send `Origin: null` on the form post, which the origin check must refuse.
 */
export function send(res: ServerResponse, status: number, html: string, scriptNonce?: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader(
    'content-security-policy',
    `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'${scriptNonce ? `; script-src 'nonce-${scriptNonce}'` : ''}`,
  );
  res.end(html);
}
