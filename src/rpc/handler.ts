import type { NetworkRef } from '../edge/route.js';
import type { ApiContext, ApiHandler } from '../edge/types.js';
import { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import type { Limiter, WriteBudget } from '../limits/types.js';
import { debugRefusal } from '../limits/debugAccess.js';
import { refusalError } from '../limits/headers.js';
import { answer, type CallContext, type RpcBackend } from './answer.js';
import { rpcSocketEndpoint, type RpcSocketOptions } from './socket.js';
import { callCount, parseBody, serializeEdgeError, toErrorObject, type ParsedBody, type RpcCall, type RpcOutcome } from './jsonrpc.js';

const WRITE_METHODS = new Set(['eth_sendRawTransaction']);

export interface RpcHandlerOptions {
  backendFor(network: NetworkRef): Promise<RpcBackend>;
  limiter: Limiter;
  maxBatch: number;
  /** Plans that open the debug_ and trace_ methods (named when a call is refused). */
  debugPlans: string[];
  /** JSON-RPC over WebSocket on the same URL. */
  sockets?: Omit<RpcSocketOptions, keyof RpcHandlerOptions | 'sockets'>;
  /** The separate submission budget of a network: the ledger relay's, or one the operator set; none means writes cost what reads cost. */
  writeBudgetFor(network: NetworkRef): WriteBudget | undefined;
}

/** What the edge parsed before an error, so the error carries the request's id. */
const parsedBodies = new WeakMap<ApiContext, ParsedBody>();

/** `/rpc` on every chain: the JSON-RPC 2.0 envelope, the budget per call, then the network's backend; WebSocket upgrades too. */
export function createRpcHandler(opts: RpcHandlerOptions): ApiHandler {
  return {
    // One request per call of a batch, priced from the parsed body; the parse is kept for the handler and errors.
    admission: {
      key: 'required',
      costOfBody(body, ctx) {
        const parsed = parseBody(body.toString('utf8'), opts.maxBatch);
        parsedBodies.set(ctx, parsed);
        return callCount(parsed);
      },
    },
    screen(ctx) {
      if (ctx.req.method !== 'POST') throw new GatewayError('METHOD_NOT_ALLOWED', 'JSON-RPC takes POST', undefined, { allow: 'POST, OPTIONS' });
    },
    async handle(ctx) {
      const parsed = parsedBodies.get(ctx)!;
      const key = ctx.caller!.key;
      const network = ctx.route.network!;
      const methods = parsed.kind === 'single' && 'call' in parsed.entry ? [parsed.entry.call.method] : parsed.kind === 'batch' ? ['batch'] : [];
      ctx.annotate({ rpcMethods: methods, calls: callCount(parsed) });
      const causes: string[] = [];
      const ctxCall = { network, requestId: ctx.requestId, key, logInternal: (cause: string) => causes.push(cause) };
      const { body, refusal } = await respond(parsed, await opts.backendFor(network), opts, ctxCall);
      if (causes.length > 0) ctx.annotate({ internalErrors: causes.slice(0, 10) });
      const refusedSingle = parsed.kind === 'single' && refusal;
      if (body === undefined) {
        ctx.res.writeHead(204).end();
        return;
      }
      ctx.res.writeHead(refusedSingle ? 429 : 200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        ...(refusedSingle ? refusal.headers : {}),
      });
      ctx.res.end(body);
    },
    renderError(err, ctx) {
      const body = serializeEdgeError(parsedBodies.get(ctx), toErrorObject(err));
      ctx.res.writeHead(err.http, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...err.headers });
      ctx.res.end(body);
    },
    ...(opts.sockets ? { socket: rpcSocketEndpoint({ ...opts, ...opts.sockets }) } : {}),
  };
}

/**
 * Answers an admitted body the same way over HTTP and WebSocket: per-call checks (debug plans, the write budget), then
 * the backend. `refusal` is set when a submission was refused for budget.
 */
export async function respond(
  parsed: ParsedBody,
  inner: RpcBackend,
  opts: Pick<RpcHandlerOptions, 'limiter' | 'debugPlans' | 'writeBudgetFor'>,
  ctx: CallContext & { key: VerifiedKey },
): Promise<{ body: string | undefined; refusal?: GatewayError }> {
  const backend = new CallChecks(inner, opts.limiter, ctx.key, opts.debugPlans, opts.writeBudgetFor(ctx.network));
  const body = await answer(parsed, backend, ctx);
  return { body, refusal: backend.refusal };
}

/**
 * Per-call checks before the backend sees a call: debug methods the key's plan does not include are refused, and each
 * transaction submission is charged to the network's write budget, if it has one.
 */
class CallChecks implements RpcBackend {
  refusal?: GatewayError;

  constructor(
    private readonly inner: RpcBackend,
    private readonly limiter: Limiter,
    private readonly key: VerifiedKey,
    private readonly debugPlans: string[],
    private readonly writeBudget: WriteBudget | undefined,
  ) {}

  async handle(calls: RpcCall[], ctx: CallContext): Promise<RpcOutcome[]> {
    const refused = new Map<number, RpcOutcome>();
    for (const [i, call] of calls.entries()) {
      const denied = debugRefusal(call.method, this.key, this.debugPlans);
      if (denied) refused.set(i, { error: toErrorObject(denied) });
      if (denied || !this.writeBudget || !WRITE_METHODS.has(call.method)) continue;
      const decision = await this.limiter.chargeWrite(this.key, this.writeBudget);
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

