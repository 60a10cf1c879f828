import { GatewayError, isGatewayError } from '../errors.js';
import { isFilterMethod, type FilterService, type NetworkFilters } from '../live/filters.js';
import { rpcSource, type ChainSource } from '../live/source.js';
import type { CallContext, RpcBackend } from './answer.js';
import { checkForwardable } from './evmGuards.js';
import { LogRange, type LogBounds } from './logRange.js';
import { plainResult, toErrorObject, type RpcCall, type RpcOutcome } from './jsonrpc.js';
import type { MethodPolicy } from './methodPolicy.js';
import { outcomesOf } from './upstreamAnswers.js';
import type { UpstreamPool } from './upstreamPool.js';

/**
 * Answers the catalogue's questions and the methods the policy closes locally, and keeps filters itself (a filter
 * held by one upstream node is lost on failover or behind a pool); everything else goes upstream in one request,
 * batch or not.
 */
export class EvmForwarder implements RpcBackend {
  private readonly chainIdHex: string;
  private readonly netVersion: string;
  /** The chain as filters and subscriptions read it: eth_blockNumber, eth_getBlockByNumber and eth_getLogs upstream. */
  readonly source: ChainSource;
  /** Bounds the logs asked of the upstream, by clients' eth_getLogs and by the source alike. */
  private readonly logRange: LogRange;
  private readonly filters?: NetworkFilters;

  constructor(
    chainId: number,
    private readonly upstream: UpstreamPool,
    private readonly policy: MethodPolicy,
    maxLogBlocks: number,
    filters?: { service: FilterService; network: string },
  ) {
    this.chainIdHex = `0x${chainId.toString(16)}`;
    this.netVersion = String(chainId);
    this.logRange = new LogRange(maxLogBlocks, () => this.source.head());
    this.source = rpcSource(
      async (calls) =>
        (await this.sendOrFail(calls.map((c) => ({ id: undefined, ...c })))).map((o, i) => {
          if ('result' in o) return plainResult(o.result);
          throw new GatewayError('UPSTREAM_UNAVAILABLE', `${calls[i].method}: ${o.error.message}`);
        }),
      this.logRange,
    );
    this.filters = filters?.service.on(filters.network, this.source);
  }

  async handle(calls: RpcCall[], ctx: CallContext): Promise<RpcOutcome[]> {
    const outcomes: RpcOutcome[] = new Array(calls.length);
    const forward: number[] = [];
    const kept: Array<Promise<void>> = [];
    let logQueries = false;
    calls.forEach((call, i) => {
      if (this.filters && isFilterMethod(call.method)) {
        kept.push(this.filters.call(call.method, call.params, ctx.key).then(
          (result) => void (outcomes[i] = { result }),
          (err) => {
            if (!isGatewayError(err)) throw err;
            outcomes[i] = { error: toErrorObject(err) };
          },
        ));
        return;
      }
      const local = this.answerLocally(call);
      if (local) outcomes[i] = local;
      else {
        forward.push(i);
        logQueries ||= call.method === 'eth_getLogs';
      }
    });
    if (forward.length > 0) kept.push(logQueries ? this.forwardInRange(calls, forward, outcomes) : this.forward(calls, forward, outcomes));
    await Promise.all(kept);
    return outcomes;
  }

  private async forward(calls: RpcCall[], forward: number[], outcomes: RpcOutcome[]): Promise<void> {
    const answers = await this.sendOrFail(forward.map((i) => calls[i]));
    forward.forEach((i, n) => (outcomes[i] = answers[n]));
  }

  /** eth_getLogs calls go on only within the log range, their tags resolved against the upstream's head. */
  private async forwardInRange(calls: RpcCall[], forward: number[], outcomes: RpcOutcome[]): Promise<void> {
    const within: number[] = [];
    await Promise.all(
      forward.map(async (i) => {
        try {
          if (calls[i].method === 'eth_getLogs') await this.logRange.check('eth_getLogs', filterOf(calls[i]));
          within.push(i);
        } catch (err) {
          if (!isGatewayError(err)) throw err;
          outcomes[i] = { error: toErrorObject(err) };
        }
      }),
    );
    if (within.length > 0) await this.forward(calls, within.sort((a, b) => a - b), outcomes);
  }

  /** Every call answered: an upstream failure becomes each call's error. */
  private async sendOrFail(calls: RpcCall[]): Promise<RpcOutcome[]> {
    try {
      return await this.send(calls);
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      const error = toErrorObject(err);
      return calls.map(() => ({ error }));
    }
  }

  private answerLocally(call: RpcCall): RpcOutcome | undefined {
    if (call.method === 'eth_chainId') return { result: this.chainIdHex };
    if (call.method === 'net_version') return { result: this.netVersion };
    const refused = this.policy.refusal(call.method);
    if (refused) return { error: toErrorObject(refused) };
    try {
      checkForwardable(call);
    } catch (err) {
      if (isGatewayError(err)) return { error: toErrorObject(err) };
      throw err;
    }
    return undefined;
  }

  /**
   * Upstream ids are our own positions, so answers map back whatever order or ids the upstream uses. Bodies with a
   * transaction submission are not hedged: sending a signed transaction twice cannot spend twice, but the second
   * node may answer first with "already known" or "nonce too low" for a transaction that went through.
   */
  private async send(calls: RpcCall[]): Promise<RpcOutcome[]> {
    const requests = calls.map((c, i) => ({ jsonrpc: '2.0', id: i, method: c.method, params: c.params }));
    const hedge = !calls.some((c) => c.method.startsWith('eth_send'));
    const body = JSON.stringify(requests.length === 1 ? requests[0] : requests);
    return this.upstream.post(body, { hedge, read: (text) => outcomesOf(text, calls.length) });
  }
}

/** The filter object of an eth_getLogs call; anything else is left for the upstream to refuse. */
function filterOf(call: RpcCall): LogBounds | undefined {
  const [filter] = Array.isArray(call.params) ? call.params : [];
  return typeof filter === 'object' && filter !== null ? filter : undefined;
}
