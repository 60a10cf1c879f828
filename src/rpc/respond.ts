/**
 * What HTTP and WebSocket share once a JSON-RPC body is admitted: the per-call checks (debug plans, the write budget),
 * then the network's backend.
 */
import type { NetworkRef } from '../edge/route.js';
import { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import { debugRefusal, isDebugMethod } from '../limits/debugAccess.js';
import { refusalError } from '../limits/headers.js';
import type { Limiter, WriteBudget } from '../limits/types.js';
import { answer, contextWith, type Answer, type CallContext, type RpcBackend } from './answer.js';
import { toErrorObject, type ParsedBody, type RpcCall, type RpcOutcome } from './jsonrpc.js';
import { SEND_SYNC } from './sendSync.js';

/** Charged once each against the write budget: the sync send is one submission, however long it waits. */
const WRITE_METHODS = new Set(['eth_sendRawTransaction', SEND_SYNC]);

/** What decides, call by call, whether a key's call reaches the backend. */
export interface CallPolicy {
  limiter: Limiter;
  /** Plans that open the debug_ and trace_ methods (named when a call is refused). */
  debugPlans: string[];
  /** The separate submission budget of a network: the ledger relay's, or one the operator set; none means writes cost what reads cost. */
  writeBudgetFor(network: NetworkRef): WriteBudget | undefined;
}

/**
 * Answers an admitted body the same way over HTTP and WebSocket: per-call checks (debug plans, the write budget), then
 * the backend. `refusal` is set when a submission was refused for budget.
 */
export function respond(
  parsed: ParsedBody,
  inner: RpcBackend,
  opts: CallPolicy,
  ctx: CallContext & { key: VerifiedKey },
): Promise<Answer & { refusal?: GatewayError }> {
  const backend = new CallChecks(inner, opts.limiter, ctx.key, opts.debugPlans, opts.writeBudgetFor(ctx.network));
  return answer(parsed, backend, ctx).then((answered) => (backend.refusal ? { ...answered, refusal: backend.refusal } : answered));
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

  handle(calls: RpcCall[], ctx: CallContext): Promise<RpcOutcome[]> {
    const paying = contextWith(ctx, { charge: () => this.chargeWork(ctx) });
    // Most bodies have no call to check: straight on, without a layer of their own.
    if (!calls.some((c) => this.checks(c.method))) return this.inner.handle(calls, paying);
    return this.checked(calls, paying);
  }

  /** Whether a call may be refused here: a debug method the key's plan does not open, or a charged submission. */
  private checks(method: string): boolean {
    return (isDebugMethod(method) && !this.key.plan.debugMethods) || (this.writeBudget !== undefined && WRITE_METHODS.has(method));
  }

  private async checked(calls: RpcCall[], paying: CallContext): Promise<RpcOutcome[]> {
    // Made on the first refusal.
    let refused: Map<number, RpcOutcome> | undefined;
    for (let i = 0; i < calls.length; i++) {
      const method = calls[i].method;
      const denied = debugRefusal(method, this.key, this.debugPlans);
      if (denied) (refused ??= new Map()).set(i, { error: toErrorObject(denied) });
      if (denied || !this.writeBudget || !WRITE_METHODS.has(method)) continue;
      const decision = await this.limiter.chargeWrite(this.key, this.writeBudget);
      if (decision.allowed) continue;
      this.refusal = refusalError(decision);
      (refused ??= new Map()).set(i, { error: toErrorObject(this.refusal) });
    }
    if (!refused) return this.inner.handle(calls, paying);
    const pass = calls.filter((_, i) => !refused.has(i));
    const answers = pass.length > 0 ? await this.inner.handle(pass, paying) : [];
    let next = 0;
    return calls.map((_, i) => refused.get(i) ?? answers[next++]);
  }

  /** One request more on the key's budget and quota, as the edge charges a call; a refusal answers a single call 429. */
  private async chargeWork(ctx: CallContext): Promise<void> {
    const decision = await this.limiter.charge(this.key, 1, { api: 'rpc', network: ctx.network.id });
    if (decision.allowed) return;
    this.refusal = refusalError(decision);
    throw this.refusal;
  }
}

