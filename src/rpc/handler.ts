import type { NetworkRef } from '../edge/route.js';
import type { ApiContext, ApiHandler } from '../edge/types.js';
import { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import type { Limiter } from '../limits/types.js';
import { refusalError } from '../limits/headers.js';
import { answer, type CallContext, type RpcBackend } from './answer.js';
import { callCount, parseBody, serializeEdgeError, toErrorObject, type ParsedBody, type RpcCall, type RpcOutcome } from './jsonrpc.js';

const WRITE_METHODS = new Set(['eth_sendRawTransaction']);

export interface RpcHandlerOptions {
  backendFor(network: NetworkRef): Promise<RpcBackend>;
  limiter: Limiter;
  maxBatch: number;
}

/** What the edge parsed before an error, so the error carries the request's id. */
const parsedBodies = new WeakMap<ApiContext, ParsedBody>();

/** `/rpc` on every chain: the JSON-RPC 2.0 envelope, the budget per call, then the network's backend. */
export function createRpcHandler(opts: RpcHandlerOptions): ApiHandler {
  return {
    async handle(ctx) {
      if (ctx.req.method !== 'POST') throw new GatewayError('METHOD_NOT_ALLOWED', 'JSON-RPC takes POST', undefined, { allow: 'POST, OPTIONS' });
      const text = (await ctx.readBody()).toString('utf8');
      const parsed = parseBody(text, opts.maxBatch);
      parsedBodies.set(ctx, parsed);
      const key = await ctx.admit(callCount(parsed));
      const network = ctx.route.network!;
      const methods = parsed.kind === 'single' && 'call' in parsed.entry ? [parsed.entry.call.method] : parsed.kind === 'batch' ? ['batch'] : [];
      ctx.annotate({ rpcMethods: methods, calls: callCount(parsed) });
      const backend = new WriteBudget(await opts.backendFor(network), opts.limiter, key);
      const body = await answer(parsed, backend, { network, requestId: ctx.requestId, key });
      const refusedSingle = parsed.kind === 'single' && backend.refusal;
      if (body === undefined) {
        ctx.res.writeHead(204).end();
        return;
      }
      ctx.res.writeHead(refusedSingle ? 429 : 200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        ...(refusedSingle ? backend.refusal!.headers : {}),
      });
      ctx.res.end(body);
    },
    renderError(err, ctx) {
      const body = serializeEdgeError(parsedBodies.get(ctx), toErrorObject(err));
      ctx.res.writeHead(err.http, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...err.headers });
      ctx.res.end(body);
    },
  };
}

/** Charges each transaction submission to the key's separate write budget before the backend sees it. */
class WriteBudget implements RpcBackend {
  refusal?: GatewayError;

  constructor(
    private readonly inner: RpcBackend,
    private readonly limiter: Limiter,
    private readonly key: VerifiedKey,
  ) {}

  async handle(calls: RpcCall[], ctx: CallContext): Promise<RpcOutcome[]> {
    const refused = new Map<number, RpcOutcome>();
    for (const [i, call] of calls.entries()) {
      if (!WRITE_METHODS.has(call.method)) continue;
      const decision = await this.limiter.chargeWrite(this.key);
      if (decision.allowed) continue;
      this.refusal = refusalError(decision);
      refused.set(i, { error: toErrorObject(this.refusal) });
    }
    if (refused.size === 0) return this.inner.handle(calls, ctx);
    const pass = calls.filter((_, i) => !refused.has(i));
    const answers = pass.length > 0 ? await this.inner.handle(pass, ctx) : [];
    let next = 0;
    return calls.map((_, i) => refused.get(i) ?? answers[next++]);
  }
}

