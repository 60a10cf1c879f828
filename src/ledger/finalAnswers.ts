/**
 * Final answers served from their text. A block, a transaction or a receipt that the mirror node has is final, so
 * its JSON-RPC answer depends only on the call and on the gas price the relay reports for it (the fee schedule, which
 * changes rarely and is part of the cache key). Its serialised text is kept in the read cache and served as is,
 * instead of formatting the same mirror records into the same objects and serialising them again on every request.
 */
import type { RpcCall, RpcOutcome } from '../rpc/jsonrpc.js';
import { RawJson } from '../rpc/jsonrpc.js';
import type { LedgerReads } from './reads.js';

const BY_HASH = new Set(['eth_getBlockByHash', 'eth_getTransactionByHash', 'eth_getTransactionReceipt']);
const BLOCK_NUMBER = /^0x[0-9a-fA-F]{1,16}$/;

/** The cache key of a call whose answer is final once it is not null; undefined for any other call. */
function finalKey(call: RpcCall): string | undefined {
  if (!Array.isArray(call.params)) return undefined;
  // A block tag (latest, safe, ...) moves; a block number does not.
  if (BY_HASH.has(call.method) || (call.method === 'eth_getBlockByNumber' && typeof call.params[0] === 'string' && BLOCK_NUMBER.test(call.params[0]))) {
    return `answer:${call.method}:${JSON.stringify(call.params)}`;
  }
  return undefined;
}

/** Answers `call` from its kept text, or through `answer` (whose non-null result is then kept). */
export async function finalAnswer(call: RpcCall, reads: LedgerReads, answer: () => Promise<RpcOutcome>): Promise<RpcOutcome> {
  const key = finalKey(call);
  if (!key) return answer();
  let fee: bigint;
  try {
    fee = await reads.gasPriceTinybar();
  } catch {
    return answer();
  }
  let own: RpcOutcome | undefined;
  const text = await reads.cache.finalText(`${key}:${fee}`, async () => {
    own = await answer();
    return 'result' in own && own.result !== null && own.result !== undefined ? JSON.stringify(own.result) : null;
  });
  if (text !== null) return { result: new RawJson(text) };
  // Not found or an error: this call's own outcome, or (when it joined another call's load) a fresh one.
  return own ?? answer();
}
