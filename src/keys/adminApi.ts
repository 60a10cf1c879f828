import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PrivateHandler } from '../edge/privateListener.js';
import { requireOperatorToken } from '../edge/operatorToken.js';
import { GatewayError } from '../errors.js';
import { monthOf } from '../limits/calendar.js';
import { checkId, type KeyAdmin, type NewKeyRequest } from './admin.js';

export const ADMIN_PREFIX = '/admin/v1';
const BODY_LIMIT = 64 * 1024;

type Params = { id: string; body: Record<string, unknown>; query: URLSearchParams };
type Operation = (admin: KeyAdmin, p: Params) => Promise<unknown>;

/** Path pattern (`:id` is one segment) to its operations by HTTP method; a POST that creates answers 201. */
const ROUTES: Array<{ pattern: string; ops: Partial<Record<'GET' | 'POST' | 'PUT', Operation>> }> = [
  { pattern: '/keys', ops: { GET: async (a) => ({ keys: await a.listKeys() }), POST: (a, p) => a.createKey(newKeyRequest(p.body)) } },
  { pattern: '/keys/:id', ops: { GET: (a, p) => a.showKey(p.id) } },
  { pattern: '/keys/:id/revoke', ops: { POST: (a, p) => a.revokeKey(p.id) } },
  { pattern: '/keys/:id/plan', ops: { PUT: (a, p) => a.setKeyPlan(p.id, planOf(p.body)) } },
  { pattern: '/keys/:id/hbar-limit', ops: { PUT: (a, p) => a.setKeyHbarLimit(p.id, tinybarOf(p.body)) } },
  { pattern: '/keys/:id/usage', ops: { GET: (a, p) => a.keyUsage(p.id, monthParam(p.query)) } },
  {
    pattern: '/accounts',
    ops: {
      GET: async (a) => ({ accounts: await a.listAccounts() }),
      POST: (a, p) => a.createAccount({ name: stringField(p.body, 'name') ?? '', email: stringField(p.body, 'email') }),
    },
  },
  { pattern: '/accounts/:id', ops: { GET: (a, p) => a.showAccount(p.id) } },
  { pattern: '/accounts/:id/revoke', ops: { POST: (a, p) => a.revokeAccount(p.id) } },
  { pattern: '/accounts/:id/plan', ops: { PUT: (a, p) => a.setAccountPlan(p.id, planOf(p.body)) } },
  { pattern: '/accounts/:id/usage', ops: { GET: (a, p) => a.accountUsage(p.id, monthParam(p.query)) } },
];

/** The served operations as `METHOD /path/{id}`, for the check against openapi/admin.yaml. */
export const ADMIN_OPERATIONS = ROUTES.flatMap((r) => Object.keys(r.ops).map((m) => `${m} ${r.pattern.replace(':id', '{id}')}`));

const MATCHERS = ROUTES.map((r) => ({ ...r, regex: new RegExp(`^${r.pattern.replace(':id', '([^/]+)')}$`) }));

/**
 * The admin API, `/admin/v1/...`: JSON in and out, every request carrying the operator token. Mounted on the private
 * listener. Errors are plain JSON `{"error":{"code","message"}}`; no answer but a key's creation carries a key.
 */
export function createAdminApi(admin: KeyAdmin, token: string): PrivateHandler {
  return async (req: IncomingMessage, res: ServerResponse) => {
    requireOperatorToken(req, token);
    const url = new URL(req.url ?? '/', 'http://admin');
    const path = url.pathname.slice(ADMIN_PREFIX.length).replace(/\/$/, '');
    for (const route of MATCHERS) {
      const match = route.regex.exec(path);
      if (!match) continue;
      const id = match[1] === undefined ? '' : decodeSegment(match[1]);
      // A key where an id belongs is refused before anything else looks at it.
      if (route.pattern.includes(':id')) checkId(id, route.pattern.startsWith('/keys') ? 'key' : 'acc');
      const op = route.ops[req.method as keyof typeof route.ops];
      if (!op) throw new GatewayError('METHOD_NOT_ALLOWED', `use ${Object.keys(route.ops).join(' or ')}`, undefined, { allow: Object.keys(route.ops).join(', ') });
      const body = req.method === 'GET' ? {} : await readJson(req);
      const result = await op(admin, { id, body, query: url.searchParams });
      const text = JSON.stringify(result);
      const created = req.method === 'POST' && !route.pattern.endsWith('/revoke');
      res.writeHead(created ? 201 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    throw new GatewayError('NOT_FOUND', `${ADMIN_PREFIX} serves ${ROUTES.map((r) => r.pattern).join(', ')}`);
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw new GatewayError('BODY_TOO_LARGE');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new GatewayError('BAD_REQUEST', 'the body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new GatewayError('BAD_REQUEST', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

function stringField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new GatewayError('BAD_REQUEST', `${name} must be a string`);
  return value;
}

function planOf(body: Record<string, unknown>): string {
  const plan = stringField(body, 'plan');
  if (!plan) throw new GatewayError('BAD_REQUEST', 'send {"plan": "<plan name>"}');
  return plan;
}

/** `{"tinybar": n}` sets the key's own hbar budget per window; `{"tinybar": null}` returns it to its plan's. */
function tinybarOf(body: Record<string, unknown>): number | null {
  const value = body.tinybar;
  if (value === null) return null;
  if (typeof value !== 'number') throw new GatewayError('BAD_REQUEST', 'send {"tinybar": <positive integer>} or {"tinybar": null}');
  return value;
}

function monthParam(query: URLSearchParams): string {
  return query.get('month') ?? monthOf(Date.now());
}

function newKeyRequest(body: Record<string, unknown>): NewKeyRequest {
  const flags = body.flags ?? [];
  if (!Array.isArray(flags) || flags.some((f) => typeof f !== 'string')) throw new GatewayError('BAD_REQUEST', 'flags must be a list of strings');
  return {
    name: stringField(body, 'name') ?? '',
    plan: stringField(body, 'plan'),
    network: stringField(body, 'network') as NewKeyRequest['network'],
    accountId: stringField(body, 'accountId'),
    email: stringField(body, 'email'),
    flags: flags as NewKeyRequest['flags'],
  };
}
