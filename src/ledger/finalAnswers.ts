/**
 * Final answers served from their text. A block, a transaction, a receipt or a block's receipts that the mirror node
 * has is final, and so are the logs of blocks it has: the JSON-RPC answer depends only on the call. (Gas prices in
 * them are the fee schedule in force at their block, final too.) The serialised text is kept in the read cache and
 * served as is, instead of formatting the same mirror records into the same objects and serialising them again on
 * every request.
 *
 * A head tag (`latest`, `pending`, `safe`, `finalized`) names the newest block, which is final here as well: such a
 * call is answered as the same call naming that block's number, so both share one text and a tag costs no more than a
 * number. `earliest` and anything else unusual take the ordinary path.
 */
import type { RpcCall, RpcOutcome } from '../rpc/jsonrpc.js';
import { RawJson } from '../rpc/jsonrpc.js';
import type { LedgerReads } from './reads.js';

/** Methods whose first param is a hash. */
const BY_HASH = new Set(['eth_getBlockByHash', 'eth_getTransactionByHash', 'eth_getTransactionReceipt', 'eth_getTransactionByBlockHashAndIndex']);
/** Methods whose first param is a block number or tag (a hash too, for eth_getBlockReceipts). */
const BY_BLOCK = new Set(['eth_getBlockByNumber', 'eth_getBlockReceipts', 'eth_getTransactionByBlockNumberAndIndex']);
const HEAD_TAGS = new Set(['latest', 'pending', 'safe', 'finalized']);
/** A block number as a client may write it; one that is not a valid quantity answers an error, which is never kept. */
const BLOCK_NUMBER = /^0x[0-9a-fA-F]{1,16}$/;

/** A call whose answer is final, and the key its text is kept under. */
interface Final {
  call: RpcCall;
  key: string;
}

const headNumber = async (reads: LedgerReads) => (await reads.latestBlock()).number;
const keyOf = (call: RpcCall) => `answer:${call.method}:${JSON.stringify(call.params)}`;
// Members written out: `{ ...call, params }` is a runtime call on this Node (V8 11.3), about 2 us.
const withParam = (call: RpcCall, params: unknown[], at: number, value: unknown): RpcCall => ({
  id: call.id,
  method: call.method,
  params: params.map((p, i) => (i === at ? value : p)),
});

/**
 * eth_getLogs is final when its range ends at or before the head: blocks named by a head tag (or left out, which
 * means latest) become the head's number. Past the head the answer can still grow, so it takes the ordinary path.
 */
function finalLogs(call: RpcCall, params: unknown[], reads: LedgerReads): Promise<Final | undefined> | Final | undefined {
  const filter = params[0];
  if (params.length !== 1 || filter === null || typeof filter !== 'object' || Array.isArray(filter)) return undefined;
  const { fromBlock, toBlock, blockHash } = filter as Record<string, unknown>;
  // A null blockHash is no block hash: the range decides.
  if (typeof blockHash === 'string') return { call, key: keyOf(call) };
  const isHead = (ref: unknown) => ref === undefined || (typeof ref === 'string' && HEAD_TAGS.has(ref));
  const isNumber = (ref: unknown) => typeof ref === 'string' && BLOCK_NUMBER.test(ref);
  if (!(isHead(fromBlock) || isNumber(fromBlock)) || !(isHead(toBlock) || isNumber(toBlock))) return undefined;
  // eth_getLogs needs the blocks it names; reading them beside the head saves a far mirror node's round trip.
  reads.readAhead([fromBlock, toBlock].filter(isNumber).map((ref) => Number.parseInt(ref as string, 16)));
  return headNumber(reads).then((n) => {
    const from = isHead(fromBlock) ? n : Number.parseInt(fromBlock as string, 16);
    const to = isHead(toBlock) ? n : Number.parseInt(toBlock as string, 16);
    // A range starting past its end answers [] while it is also past the head, and an error once the head reaches it.
    if (to > n || from > to) return undefined;
    // Blocks given by number (the common case) need no copy of the filter.
    if (!isHead(fromBlock) && !isHead(toBlock)) return { call, key: keyOf(call) };
    const hex = `0x${n.toString(16)}`;
    const resolved = { ...filter, fromBlock: isHead(fromBlock) ? hex : fromBlock, toBlock: isHead(toBlock) ? hex : toBlock };
    const final = withParam(call, params, 0, resolved);
    return { call: final, key: keyOf(final) };
  });
}

/** The final form of a call, or undefined when its answer may still change. */
function finalCall(call: RpcCall, reads: LedgerReads): Promise<Final | undefined> | Final | undefined {
  const params = call.params;
  if (!Array.isArray(params) || typeof params[0] !== 'string') return call.method === 'eth_getLogs' && Array.isArray(params) ? finalLogs(call, params, reads) : undefined;
  if (BY_HASH.has(call.method)) return { call, key: keyOf(call) };
  if (!BY_BLOCK.has(call.method)) return undefined;
  if (!HEAD_TAGS.has(params[0])) return BLOCK_NUMBER.test(params[0]) || /^0x[0-9a-fA-F]{64}$/.test(params[0]) ? { call, key: keyOf(call) } : undefined;
  return headNumber(reads).then((n) => {
    const final = withParam(call, params, 0, `0x${n.toString(16)}`);
    return { call: final, key: keyOf(final) };
  });
}

/**
 * Answers `call` from its kept text, or through `answer` (whose non-null result is then kept). A call with a head tag
 * is answered as the call naming the head's number, so the text kept matches its key even if the head moves meanwhile.
 * Not an async function: a call whose final form needs no head (a block by number, a hash) and whose text is kept is
 * answered without a turn of its own, as most of a warm production mix is.
 */
export function finalAnswer(call: RpcCall, reads: LedgerReads, answer: (call: RpcCall) => Promise<RpcOutcome>): Promise<RpcOutcome> {
  let final: Promise<Final | undefined> | Final | undefined;
  try {
    final = finalCall(call, reads);
  } catch {
    final = undefined;
  }
  // No head to resolve a tag against: the method itself reports why.
  if (final instanceof Promise) return final.catch(() => undefined).then((f) => answerFinal(call, f, reads, answer));
  return answerFinal(call, final, reads, answer);
}

function answerFinal(call: RpcCall, final: Final | undefined, reads: LedgerReads, answer: (call: RpcCall) => Promise<RpcOutcome>): Promise<RpcOutcome> {
  if (!final) return answer(call);
  const kept = reads.cache.peekText(final.key);
  return kept ? Promise.resolve({ result: kept }) : loadFinal(final, reads, answer);
}

async function loadFinal({ key, call: asked }: Final, reads: LedgerReads, answer: (call: RpcCall) => Promise<RpcOutcome>): Promise<RpcOutcome> {
  let own: RpcOutcome | undefined;
  const loaded = await reads.cache.finalText(key, async () => {
    own = await answer(asked);
    return 'result' in own && own.result !== null && own.result !== undefined ? JSON.stringify(own.result) : null;
  });
  if (loaded) return { result: loaded };
  // Not found or an error: this call's own outcome, or (when it joined another call's load) a fresh one.
  return own ?? answer(asked);
}
