import type { NetworkRef } from '../edge/route.js';
import { endInBurst } from '../edge/burstWrites.js';
import type { ApiContext, ApiHandler } from '../edge/types.js';
import { GatewayError } from '../errors.js';
import type { Answer, RpcBackend } from './answer.js';
import { ALWAYS_200, type StatusRule } from './httpStatus.js';
import { callCount, parseBody, serializeEdgeError, toErrorObject, type ParsedBody } from './jsonrpc.js';
import { respond, type CallPolicy } from './respond.js';
import { rpcSocketEndpoint, type RpcSocketOptions } from './socket.js';

export interface RpcHandlerOptions extends CallPolicy {
  /** A promise only while the backend is still being made (the ledger relay's first use). */
  backendFor(network: NetworkRef): RpcBackend | Promise<RpcBackend>;
  maxBatch: number;
  /** How a network's JSON-RPC errors map to HTTP statuses; 200 for all when absent. */
  statusRuleFor?(network: NetworkRef): StatusRule;
  /** What leads a network's error messages over HTTP (the official relay's `[Request ID: <id>] `), if anything. */
  errorPrefixFor?(network: NetworkRef, requestId: string): string | undefined;
  /** JSON-RPC over WebSocket on the same URL. */
  sockets?: Omit<RpcSocketOptions, keyof RpcHandlerOptions | 'sockets'>;
}

/** The body `costOfBody` parsed, if it got that far: an error then carries the request's id. */
const parsedOf = (ctx: ApiContext) => ctx.priced as ParsedBody | undefined;

/** `/rpc` on every chain: the JSON-RPC 2.0 envelope, the budget per call, then the network's backend; WebSocket upgrades too. */
export function createRpcHandler(opts: RpcHandlerOptions): ApiHandler {
  /** The answer as the response: 204 for notifications alone, else the status the network's rule gives it. */
  const write = (ctx: ApiContext, parsed: ParsedBody, causes: string[], { body, error, refusal }: Answer & { refusal?: GatewayError }): void => {
    if (causes.length > 0) ctx.annotate({ internalErrors: causes.slice(0, 10) });
    const refusedSingle = parsed.kind === 'single' && refusal;
    if (body === undefined) {
      ctx.res.writeHead(204, ctx.headers.with()).end();
      return;
    }
    const status = refusedSingle ? 429 : (opts.statusRuleFor?.(ctx.route.network!) ?? ALWAYS_200)({ batch: parsed.kind === 'batch', error });
    const length = Buffer.byteLength(body);
    const more = refusedSingle ? { 'content-type': 'application/json', 'content-length': length, ...refusal.headers } : { 'content-type': 'application/json', 'content-length': length };
    ctx.res.writeHead(status, ctx.headers.with(more));
    endInBurst(ctx.res, body);
  };
  return {
    // One request per call of a batch, priced from the parsed body; the parse is kept for the handler and errors.
    admission: {
      key: 'required',
      costOfBody(body, ctx) {
        const parsed = parseBody(body.toString('utf8'), opts.maxBatch, ctx.route.network?.chain.kind === 'ledger' ? 'official' : 'default');
        ctx.priced = parsed;
        return callCount(parsed);
      },
    },
    screen(ctx) {
      if (ctx.req.method !== 'POST') throw new GatewayError('METHOD_NOT_ALLOWED', 'JSON-RPC takes POST', undefined, { allow: 'POST, OPTIONS' });
    },
    // Not an async function: from here to the write is one promise chain, the backend's own.
    handle(ctx) {
      const parsed = parsedOf(ctx)!;
      const key = ctx.caller!.key;
      const network = ctx.route.network!;
      const methods = parsed.kind === 'single' && 'call' in parsed.entry ? [parsed.entry.call.method] : parsed.kind === 'batch' ? ['batch'] : [];
      ctx.annotate({ rpcMethods: methods, calls: callCount(parsed) });
      const causes: string[] = [];
      const errorPrefix = opts.errorPrefixFor?.(network, ctx.requestId);
      // No spread in the literal (a runtime call on this Node, per request): an absent prefix is undefined.
      const ctxCall = { network, requestId: ctx.requestId, key, logInternal: (cause: string) => causes.push(cause), errorPrefix };
      const backend = opts.backendFor(network);
      const answered = backend instanceof Promise ? backend.then((b) => respond(parsed, b, opts, ctxCall)) : respond(parsed, backend, opts, ctxCall);
      return answered.then((a) => write(ctx, parsed, causes, a));
    },
    renderError(err, ctx) {
      const error = toErrorObject(err);
      const body = serializeEdgeError(parsedOf(ctx), error);
      // The official relay answers a body past its limit as an invalid request (400): mapped as its other errors are
      // where its mapping applies; the edge's other refusals (401, 403, 429) keep their statuses everywhere.
      const rule = ctx.route.network && opts.statusRuleFor?.(ctx.route.network);
      const status = err.errorName === 'BODY_TOO_LARGE' && rule && rule !== ALWAYS_200 ? rule({ batch: false, error }) : err.http;
      ctx.res.writeHead(status, ctx.headers.with({ 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...err.headers }));
      endInBurst(ctx.res, body);
    },
    takesHeaders: true,
    ...(opts.sockets ? { socket: rpcSocketEndpoint({ ...opts, ...opts.sockets }) } : {}),
  };
}
