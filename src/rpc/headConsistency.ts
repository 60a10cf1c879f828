/**
 * What keeps a key's view of an EVM chain from going backwards when its requests land on upstreams that lag each
 * other: the highest head each key was shown (bounded, least recently used forgotten), the head an upstream must have
 * to answer a call, and which empty answers a more advanced upstream should be asked again.
 */
import { lruOf } from '../lru.js';
import type { RpcCall } from './jsonrpc.js';

/** Keys whose head is remembered; one forgotten only loses its pin until its next eth_blockNumber. */
export const MAX_PINNED_KEYS = 100_000;

/** Where each method that reads state at a block takes its block parameter (a number, a tag, or EIP-1898's object). */
const BLOCK_PARAM = new Map<string, number>(Object.entries({
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_getProof: 2,
  eth_getBlockByNumber: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getUncleCountByBlockNumber: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  eth_getUncleByBlockNumberAndIndex: 0,
  eth_getBlockReceipts: 0,
  eth_feeHistory: 1,
}));

/** Lookups whose null means "this upstream has not seen it yet" as often as "it does not exist". */
const NULL_WHEN_BEHIND = new Set(['eth_getBlockByNumber', 'eth_getBlockByHash', 'eth_getTransactionReceipt', 'eth_getTransactionByHash', 'eth_getBlockReceipts']);

export class KeyHeads {
  private readonly heads = lruOf<string, bigint>(MAX_PINNED_KEYS);

  get(keyId: string | undefined): bigint | undefined {
    return keyId === undefined ? undefined : this.heads.get(keyId);
  }

  /** The head to show the key: `seen`, or the higher one it was shown before. */
  raise(keyId: string | undefined, seen: bigint): bigint {
    if (keyId === undefined) return seen;
    const shown = this.heads.get(keyId);
    if (shown !== undefined && shown >= seen) return shown;
    this.heads.set(keyId, seen);
    return seen;
  }
}

/** The block a call names at its block parameter: a number, `latest` (or the parameter left out), or neither. */
export function blockOf(call: RpcCall): bigint | 'latest' | undefined {
  if (call.method === 'eth_blockNumber') return 'latest';
  const at = BLOCK_PARAM.get(call.method);
  if (at === undefined) return undefined;
  const params = Array.isArray(call.params) ? call.params : [];
  let ref = params[at];
  if (ref !== null && typeof ref === 'object' && 'blockNumber' in ref) ref = (ref as { blockNumber: unknown }).blockNumber;
  if (ref === undefined || ref === 'latest') return 'latest';
  if (typeof ref === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(ref)) return BigInt(ref);
  return undefined;
}

/**
 * The head an upstream must have to answer `call` for a key shown `pin`: the block it names, or the pin for latest.
 * eth_blockNumber needs none: any upstream may answer it, and the key is shown the pin if that is higher.
 */
export function headNeeded(call: RpcCall, pin: bigint | undefined): bigint | undefined {
  if (call.method === 'eth_blockNumber') return undefined;
  const block = blockOf(call);
  return block === 'latest' ? pin : block;
}

/** Whether a null answer to `call` may only mean its upstream is behind. */
export function nullMayBeLag(call: RpcCall): boolean {
  return NULL_WHEN_BEHIND.has(call.method);
}

/** Whether a call's upstream or its answer depends on the key's head at all: the others skip the bookkeeping. */
export function readsAtHead(call: RpcCall): boolean {
  return call.method === 'eth_blockNumber' || BLOCK_PARAM.has(call.method) || NULL_WHEN_BEHIND.has(call.method);
}
