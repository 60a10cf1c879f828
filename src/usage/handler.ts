import type { ApiContext, ApiHandler } from '../edge/types.js';
import { writeJsonError } from '../edge/plainError.js';
import { GatewayError } from '../errors.js';
import { send } from '../keys/page.js';
import { errorPage } from '../keys/pageHtml.js';
import type { KeyVerifier, VerifiedKey } from '../keys/types.js';
import { usageFormPage, usagePage } from './pageHtml.js';
import { usageReport, type UsageSources } from './report.js';

export interface UsageHandlerOptions {
  sources: UsageSources;
  /** Verifies the key typed into the page's form (the edge verifies header and path keys). */
  verifier: KeyVerifier;
}

const PAGE_PATH = '/keys/usage';
const FORM_LIMIT = 1_024;

/**
 * The key owner's usage. `GET /usage` (key in a header) or `/v1/<key>/usage` answers JSON; `/keys/usage` on the app
 * host is the page: a form whose key is POSTed (never put in a URL), answered with the charts. Neither costs a
 * request, so a key whose budget or quota is spent can still see why.
 */
export function createUsageHandler(opts: UsageHandlerOptions): ApiHandler {
  const isPage = (ctx: ApiContext) => ctx.route.apiPath.split('?', 1)[0].replace(/\/$/, '') === PAGE_PATH;

  async function page(ctx: ApiContext): Promise<void> {
    let key: VerifiedKey | null | undefined = ctx.caller?.key;
    if (ctx.req.method === 'POST') {
      if (!String(ctx.req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        throw new GatewayError('UNSUPPORTED_MEDIA', `submit the form on ${PAGE_PATH}`);
      }
      const body = await ctx.readBody(FORM_LIMIT);
      const typed = (new URLSearchParams(body.toString('utf8')).get('key') ?? '').trim();
      if (!typed) {
        send(ctx.res, 400, usageFormPage('Type your API key.'));
        return;
      }
      key = await opts.verifier.verify(typed);
      if (!key) {
        send(ctx.res, 401, usageFormPage('That API key is not recognised, or it was revoked.'));
        return;
      }
      ctx.annotate({ keyId: key.id });
    }
    send(ctx.res, 200, key ? usagePage(await usageReport(key, opts.sources)) : usageFormPage());
  }

  return {
    admission: { key: 'optional', cost: 0 },
    screen(ctx) {
      const allowed = isPage(ctx) ? ['GET', 'HEAD', 'POST'] : ['GET', 'HEAD'];
      if (!allowed.includes(ctx.req.method ?? '')) throw new GatewayError('METHOD_NOT_ALLOWED', `use ${allowed.join(' or ')}`, undefined, { allow: allowed.join(', ') });
    },
    async handle(ctx) {
      if (isPage(ctx)) return page(ctx);
      if (!ctx.caller) throw new GatewayError('KEY_MISSING');
      const text = JSON.stringify(await usageReport(ctx.caller.key, opts.sources));
      ctx.res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
      ctx.res.end(text);
    },
    renderError(err, ctx) {
      if (!isPage(ctx)) {
        writeJsonError(ctx.res, err);
        return;
      }
      for (const [h, v] of Object.entries(err.headers ?? {})) ctx.res.setHeader(h, v);
      send(ctx.res, err.http, errorPage(err.http, err.message));
    },
  };
}
