import { GatewayError, isGatewayError } from '../errors.js';
import type { CallContext, RpcBackend } from './answer.js';
import { checkForwardable } from './evmGuards.js';
import { toErrorObject, type RpcCall, type RpcOutcome } from './jsonrpc.js';
import type { UpstreamPool } from './upstreamPool.js';

/** Answers the catalogue's questions locally; everything else goes upstream in one request, batch or not. */
export class EvmForwarder implements RpcBackend {
  private readonly chainIdHex: string;
  private readonly netVersion: string;

  constructor(
    chainId: number,
    private readonly upstream: UpstreamPool,
  ) {
    this.chainIdHex = `0x${chainId.toString(16)}`;
    this.netVersion = String(chainId);
  }

  async handle(calls: RpcCall[], _ctx: CallContext): Promise<RpcOutcome[]> {
    const outcomes: RpcOutcome[] = new Array(calls.length);
    const forward: number[] = [];
    calls.forEach((call, i) => {
      const local = this.answerLocally(call);
      if (local) outcomes[i] = local;
      else forward.push(i);
    });
    if (forward.length === 0) return outcomes;
    try {
      const answers = await this.send(forward.map((i) => calls[i]));
      forward.forEach((i, n) => (outcomes[i] = answers[n]));
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      const error = toErrorObject(err);
      for (const i of forward) outcomes[i] = { error };
    }
    return outcomes;
  }

  private answerLocally(call: RpcCall): RpcOutcome | undefined {
    if (call.method === 'eth_chainId') return { result: this.chainIdHex };
    if (call.method === 'net_version') return { result: this.netVersion };
    try {
      checkForwardable(call);
    } catch (err) {
      if (isGatewayError(err)) return { error: toErrorObject(err) };
      throw err;
    }
    return undefined;
  }

  /** Upstream ids are our own positions, so answers map back whatever order or ids the upstream uses. */
  private async send(calls: RpcCall[]): Promise<RpcOutcome[]> {
    const requests = calls.map((c, i) => ({ jsonrpc: '2.0', id: i, method: c.method, params: c.params }));
    const reply = await this.upstream.post(JSON.stringify(requests.length === 1 ? requests[0] : requests));
    const replies = Array.isArray(reply) ? reply : [reply];
    const byId = new Map<number, RpcOutcome>();
    for (const r of replies) {
      if (r && typeof r === 'object' && typeof (r as { id?: unknown }).id === 'number') byId.set((r as { id: number }).id, toOutcome(r));
    }
    // A single upstream error without an id (some nodes refuse batches that way) answers every call.
    const fallback = replies.length === 1 && byId.size === 0 ? toOutcome(replies[0]) : undefined;
    return calls.map((_, i) => byId.get(i) ?? fallback ?? { error: toErrorObject(new GatewayError('UPSTREAM_UNAVAILABLE', 'upstream returned no answer for this call')) });
  }
}

function toOutcome(reply: unknown): RpcOutcome {
  const r = reply as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  if (r && typeof r === 'object' && r.error && typeof r.error === 'object') {
    const { code, message, data } = r.error;
    return {
      error: {
        code: typeof code === 'number' ? code : -32603,
        message: typeof message === 'string' ? message : 'upstream error',
        ...(data === undefined ? {} : { data }),
      },
    };
  }
  if (r && typeof r === 'object' && 'result' in r) return { result: r.result };
  return { error: toErrorObject(new GatewayError('UPSTREAM_UNAVAILABLE', 'upstream answer is not JSON-RPC')) };
}
