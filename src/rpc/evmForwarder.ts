import { keccak256 } from 'ethers/crypto';
import { GatewayError, isGatewayError } from '../errors.js';
import { isFilterMethod, type FilterService, type NetworkFilters } from '../live/filters.js';
import { rpcSource, type ChainSource } from '../live/source.js';
import type { CallContext, RpcBackend } from './answer.js';
import { checkForwardable } from './evmGuards.js';
import { LogRange, type LogBounds } from './logRange.js';
import { plainResult, toErrorObject, type RpcCall, type RpcOutcome } from './jsonrpc.js';
import type { MethodPolicy } from './methodPolicy.js';
import { pollUntil, SEND_SYNC, syncTimeout, syncWaitMs, type SyncWaitLimits } from './sendSync.js';
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
  /** Cleared when an upstream answers eth_sendRawTransactionSync -32601: from then on the gateway emulates it. */
  private upstreamSendsSync = true;

  constructor(
    chainId: number,
    private readonly upstream: UpstreamPool,
    private readonly policy: MethodPolicy,
    maxLogBlocks: number,
    private readonly syncLimits: SyncWaitLimits,
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
      else if (call.method === SEND_SYNC) kept.push(this.sendSync(call).then((o) => void (outcomes[i] = o)));
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

  /**
   * EIP-7966 with the wait capped by the gateway. Forwarded while the upstream knows the method (geth 1.16.6 and later,
   * reth, anvil), with the client's params as they came (nodes disagree on the timeout's form: geth reads a hex
   * quantity, anvil 1.7 takes no timeout at all) and a timeout above the cap cut to it; an upstream that waits longer
   * than the cap is not waited for. Otherwise emulated the EIP's reference way: eth_sendRawTransaction, then
   * eth_getTransactionReceipt until the receipt is in. Out of time, the answer is error 4 with the hash.
   */
  private async sendSync(call: RpcCall): Promise<RpcOutcome> {
    const params = Array.isArray(call.params) ? call.params : [];
    const waitMs = syncWaitMs(params[1], this.syncLimits);
    const deadline = Date.now() + waitMs;
    const late = () => ({ error: toErrorObject(syncTimeout(transactionHash(params[0]), waitMs)) });
    if (this.upstreamSendsSync) {
      const forwarded = params.length > 1 ? [params[0], cappedLike(params[1], waitMs), ...params.slice(2)] : params;
      const answer = await untilDeadline(this.sendOrFail([{ ...call, params: forwarded }]).then(([a]) => a), deadline);
      if (!answer) return late();
      // An unknown method submitted nothing, so sending the transaction again cannot spend twice.
      if (!('error' in answer) || answer.error.code !== METHOD_NOT_FOUND) return answer;
      this.upstreamSendsSync = false;
    }
    const [sent] = await this.sendOrFail([{ ...call, method: 'eth_sendRawTransaction', params: params.slice(0, 1) }]);
    if ('error' in sent) return sent;
    const hash = plainResult(sent.result);
    const receipt = await pollUntil(async () => {
      const [answer] = await this.sendOrFail([{ id: undefined, method: 'eth_getTransactionReceipt', params: [hash] }]);
      return 'result' in answer ? plainResult(answer.result) : undefined;
    }, deadline);
    return receipt ? { result: receipt } : late();
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

const METHOD_NOT_FOUND = -32601;

/** The client's timeout, cut to the gateway's wait in the form it came in (a number, or a hex quantity). */
function cappedLike(timeout: unknown, waitMs: number): unknown {
  return typeof timeout === 'string' ? `0x${waitMs.toString(16)}` : typeof timeout === 'number' ? waitMs : timeout;
}

/** The answer, or undefined when the deadline (epoch ms) comes first; a late answer is dropped. */
function untilDeadline<T>(answer: Promise<T>, deadline: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  // A failure after the deadline has no one to answer.
  answer.catch(() => undefined);
  const expiry = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()))));
  return Promise.race([answer, expiry]).finally(() => clearTimeout(timer));
}

/** A signed transaction's hash is the keccak of its bytes, typed or legacy; undefined for anything that is not hex. */
function transactionHash(raw: unknown): string | undefined {
  return typeof raw === 'string' && /^0x([0-9a-fA-F]{2})+$/.test(raw) ? keccak256(raw) : undefined;
}

/** The filter object of an eth_getLogs call; anything else is left for the upstream to refuse. */
function filterOf(call: RpcCall): LogBounds | undefined {
  const [filter] = Array.isArray(call.params) ? call.params : [];
  return typeof filter === 'object' && filter !== null ? filter : undefined;
}
