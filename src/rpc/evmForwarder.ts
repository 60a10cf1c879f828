import type { Config, NetworkConfig } from '../config/schema.js';
import { keccak256 } from 'ethers/crypto';
import { GatewayError, isGatewayError } from '../errors.js';
import { isFilterMethod, type FilterService, type NetworkFilters } from '../live/filters.js';
import { rpcSource, type ChainSource } from '../live/source.js';
import type { CallContext, RpcBackend } from './answer.js';
import { checkForwardable } from './evmGuards.js';
import { LogRange, type LogBounds } from './logRange.js';
import { fetchSplit, spansOf, type Span } from './logSplit.js';
import { blockOf, headNeeded, KeyHeads, nullMayBeLag, readsAtHead } from './headConsistency.js';
import { plainResult, RawJson, toErrorObject, type RpcCall, type RpcOutcome } from './jsonrpc.js';
import type { MethodPolicy } from './methodPolicy.js';
import { pollUntil, SEND_SYNC, syncTimeout, syncWaitMs, type SyncWaitLimits } from './sendSync.js';
import { outcomesOf } from './upstreamAnswers.js';
import type { PostOptions, UpstreamPool } from './upstreamPool.js';

/** How wide a log query may be on one EVM network, and how it is cut for its upstreams. */
export interface LogLimits {
  /** Widest span of a log query when the key's plan sets none (rpcPolicy.maxLogBlocks); filters always. */
  maxBlocks: number;
  /** Widest span one upstream request covers until an upstream names a narrower one. */
  blocksPerRequest: number;
  concurrency: number;
  maxBytes: number;
}

export function logLimits(policy: Config['rpcPolicy'], network: NetworkConfig): LogLimits {
  return {
    maxBlocks: policy.maxLogBlocks,
    blocksPerRequest: network.logBlocksPerRequest ?? policy.maxLogBlocks,
    concurrency: policy.logConcurrency,
    maxBytes: policy.maxLogBytes,
  };
}

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
  /** The span one upstream request covers: configured, then narrowed by what the upstreams' refusals name. */
  private blocksPerRequest: number;
  /** The head each key was shown on this network. */
  private readonly heads = new KeyHeads();
  /** Cleared when an upstream answers eth_sendRawTransactionSync -32601: from then on the gateway emulates it. */
  private upstreamSendsSync = true;

  constructor(
    chainId: number,
    private readonly upstream: UpstreamPool,
    private readonly policy: MethodPolicy,
    private readonly logs: LogLimits,
    private readonly syncLimits: SyncWaitLimits,
    filters?: { service: FilterService; network: string },
  ) {
    this.chainIdHex = `0x${chainId.toString(16)}`;
    this.netVersion = String(chainId);
    this.blocksPerRequest = logs.blocksPerRequest;
    this.logRange = new LogRange(logs.maxBlocks, () => this.source.head());
    this.source = rpcSource(async (calls) => {
      const asked = calls.map((c) => ({ id: undefined, ...c }));
      // A filter's logs are cut for the upstream as a client's are (the source reads them one call at a time).
      const outcomes = asked.length === 1 && asked[0].method === 'eth_getLogs' ? [await this.getLogs(asked[0])] : await this.sendOrFail(asked);
      return outcomes.map((o, i) => {
        if ('result' in o) return plainResult(o.result);
        throw new GatewayError('UPSTREAM_UNAVAILABLE', `${calls[i].method}: ${o.error.message}`);
      });
    }, this.logRange);
    this.filters = filters?.service.on(filters.network, this.source);
  }

  handle(calls: RpcCall[], ctx: CallContext): Promise<RpcOutcome[]> {
    // One call that goes upstream as it came is most bodies: straight to the upstream, no bookkeeping of several.
    if (calls.length === 1) {
      const call = calls[0];
      const special = (this.filters && isFilterMethod(call.method)) || call.method === SEND_SYNC || call.method === 'eth_getLogs';
      if (!special) {
        const local = this.answerLocally(call);
        return local ? Promise.resolve([local]) : this.sendOrFail(calls, ctx);
      }
    }
    return this.handleMany(calls, ctx);
  }

  private async handleMany(calls: RpcCall[], ctx: CallContext): Promise<RpcOutcome[]> {
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
    if (forward.length > 0) kept.push(logQueries ? this.forwardLogs(calls, forward, outcomes, ctx) : this.forward(calls, forward, outcomes, ctx));
    // Most bodies wait on one thing: no Promise.all for it.
    if (kept.length === 1) await kept[0];
    else if (kept.length > 1) await Promise.all(kept);
    return outcomes;
  }

  private async forward(calls: RpcCall[], forward: number[], outcomes: RpcOutcome[], ctx: CallContext): Promise<void> {
    const answers = await this.sendOrFail(forward.map((i) => calls[i]), ctx);
    forward.forEach((i, n) => (outcomes[i] = answers[n]));
  }

  /**
   * Each eth_getLogs call on its own, within the span the key's plan allows (tags resolved against the upstream's
   * head), cut into the spans the upstream serves; the other calls go on together.
   */
  private async forwardLogs(calls: RpcCall[], forward: number[], outcomes: RpcOutcome[], ctx: CallContext): Promise<void> {
    const others = forward.filter((i) => calls[i].method !== 'eth_getLogs');
    await Promise.all([
      ...forward.filter((i) => calls[i].method === 'eth_getLogs').map(async (i) => (outcomes[i] = await this.getLogs(calls[i], ctx))),
      others.length > 0 ? this.forward(calls, others, outcomes, ctx) : undefined,
    ]);
  }

  /** A log query from another API (the EVM GraphQL's `logs`) held to eth_getLogs's span: the plan's, else the network's. */
  checkLogRange(method: string, bounds: LogBounds, maxBlocks = this.logs.maxBlocks): Promise<Span | undefined> {
    return this.logRange.check(method, bounds, maxBlocks);
  }

  /** `ctx` absent for the gateway's own reads (filters, subscriptions): the network's span, nobody charged. */
  private async getLogs(call: RpcCall, ctx?: CallContext): Promise<RpcOutcome> {
    const filter = filterOf(call);
    let span: Span | undefined;
    try {
      span = await this.logRange.check('eth_getLogs', filter, ctx?.key?.plan.maxLogBlocks ?? this.logs.maxBlocks);
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      return { error: toErrorObject(err) };
    }
    // A blockHash query, or bounds the node will refuse or answer empty itself, go on as they came.
    if (!span || span.to < span.from) return (await this.sendOrFail([call], ctx))[0];
    const spans = spansOf(span, this.blocksPerRequest);
    return fetchSplit(spans, {
      concurrency: this.logs.concurrency,
      maxBytes: this.logs.maxBytes,
      // The call as sent while it fits one request, so the upstream resolves its tags as the client meant.
      fetch: async (s) => (await this.sendOrFail([spans.length === 1 && s === spans[0] ? call : withSpan(call, filter!, s)], ctx))[0],
      charge: async () => ctx?.charge?.(),
      learned: (blocks) => (this.blocksPerRequest = Math.min(this.blocksPerRequest, blocks)),
    });
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
   * The calls sent to an upstream that has the blocks they name (and, for `latest`, the head the key was shown), their
   * answers then kept consistent with that head (see `consistent`); every call answered, an upstream failure as each
   * call's error.
   */
  private sendOrFail(calls: RpcCall[], ctx?: CallContext): Promise<RpcOutcome[]> {
    const failed = (err: unknown): RpcOutcome[] => {
      if (!isGatewayError(err)) throw err;
      const error = toErrorObject(err);
      return calls.map(() => ({ error }));
    };
    // Calls whose answers never depend on a head (eth_gasPrice, eth_sendRawTransaction, ...) skip the bookkeeping.
    if (!calls.some(readsAtHead)) return this.post(calls, {}).then(undefined, failed);
    const keyId = ctx?.key?.id;
    const pin = this.heads.get(keyId);
    let minHead: bigint | undefined;
    for (const c of calls) {
      const need = headNeeded(c, pin);
      if (need !== undefined && (minHead === undefined || need > minHead)) minHead = need;
    }
    let from: Answerer | undefined;
    // One promise from the upstream's answer to the outcomes: the consistency checks and the failure share it.
    return this.post(calls, { minHead, answered: (label, head) => (from = { label, head }) }).then((outcomes) => {
      let asking = false;
      for (let i = 0; i < outcomes.length; i++) {
        const outcome = this.consistent(calls[i], outcomes[i], keyId, pin, from);
        if (outcome instanceof Promise) asking = true;
        outcomes[i] = outcome as RpcOutcome;
      }
      // Only an answer asked again waits; the others are final as they came.
      return asking ? Promise.all(outcomes) : outcomes;
    }, failed);
  }

  /**
   * Upstream ids are our own positions, so answers map back whatever order or ids the upstream uses. Bodies with a
   * transaction submission are not hedged: sending a signed transaction twice cannot spend twice, but the second
   * node may answer first with "already known" or "nonce too low" for a transaction that went through.
   */
  private post(calls: RpcCall[], opts: Omit<PostOptions<RpcOutcome[]>, 'hedge' | 'read'>): Promise<RpcOutcome[]> {
    const hedge = !calls.some((c) => c.method.startsWith('eth_send'));
    const body = calls.length === 1 ? upstreamRequest(calls[0], 0) : `[${calls.map(upstreamRequest).join(',')}]`;
    // Written out, not spread: spreading `opts` was this method's whole cost in the forwarding profile (1.9% of it).
    const read = (text: string) => outcomesOf(text, calls.length);
    return this.upstream.post(body, { minHead: opts.minHead, exclude: opts.exclude, answered: opts.answered, hedge, read });
  }

  /**
   * One answer as the key may see it, given the head `pin` it was shown before: eth_blockNumber never below it; a
   * `latest` block below it replaced by the block at it; a null block, receipt or transaction asked again, once, of an
   * upstream ahead of the one that answered. Only these few methods' answers are read; the rest pass as they came.
   */
  private consistent(call: RpcCall, outcome: RpcOutcome, keyId: string | undefined, pin: bigint | undefined, from: Answerer | undefined): RpcOutcome | Promise<RpcOutcome> {
    if (!('result' in outcome)) return outcome;
    if (call.method === 'eth_blockNumber') {
      const head = quantityOf(plainResult(outcome.result));
      if (head === undefined) return outcome;
      if (from) this.upstream.noteHead(from.label, head);
      const shown = this.heads.raise(keyId, head);
      return shown === head ? outcome : { result: hex(shown) };
    }
    if (nullMayBeLag(call) && isNull(outcome.result)) {
      const block = blockOf(call);
      const need = typeof block === 'bigint' ? block : block === 'latest' ? pin : from?.head !== undefined ? from.head + 1n : undefined;
      if (need === undefined || !this.upstream.hasHead(need, from?.label)) return outcome;
      return this.post([call], { minHead: need, exclude: from?.label }).then(([again]) => again, () => outcome);
    }
    if (call.method === 'eth_getBlockByNumber' && keyId !== undefined && blockOf(call) === 'latest') {
      const number = quantityOf((plainResult(outcome.result) as { number?: unknown } | null)?.number);
      if (number === undefined) return outcome;
      if (pin === undefined || number >= pin) {
        this.heads.raise(keyId, number);
        return outcome;
      }
      const atPin = { ...call, params: [hex(pin), ...(call.params as unknown[]).slice(1)] };
      return this.post([atPin], { minHead: pin, exclude: from?.label }).then(
        ([again]) => ('result' in again && plainResult(again.result) !== null ? again : outcome),
        () => outcome,
      );
    }
    return outcome;
  }
}

/** The upstream that gave an answer, and its head as last known. */
interface Answerer {
  label: string;
  head: bigint | undefined;
}

/**
 * One call as the upstream gets it, under our id. Written out around the params' own serialisation: as the same
 * object through JSON.stringify it cost several times as much (the forwarding profile's largest line of our own).
 */
function upstreamRequest(call: RpcCall, id: number): string {
  const params = call.params === undefined ? '' : `,"params":${JSON.stringify(call.params)}`;
  return `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(call.method)}${params}}`;
}

function isNull(result: unknown): boolean {
  return result === null || (result instanceof RawJson && result.text.length < 16 && result.text.trim() === 'null');
}

function quantityOf(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value) ? BigInt(value) : undefined;
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

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** The eth_getLogs call over `span` instead of the client's bounds. */
function withSpan(call: RpcCall, filter: LogBounds, span: Span): RpcCall {
  return { ...call, params: [{ ...filter, fromBlock: hex(span.from), toBlock: hex(span.to) }] };
}
