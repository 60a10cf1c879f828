/**
 * A block's receipts as its receipts trie commits to them: each receipt RLP-encoded (EIP-2718 typed receipts carry
 * their type byte in front) under the key rlp(transaction index); the block's `receiptsRoot` is the trie's root.
 * Also the logs bloom of a list of logs, for receipts the mirror node keeps no bloom for.
 */
import { EMPTY_BLOOM } from './convert.js';
import { keccakBytes } from './keccak.js';
import { hexBytes, rlpBytes, rlpList, uintBytes } from './rlp.js';
import { indexKey, trieRoot } from './trie.js';

export interface TrieLog {
  address: string;
  topics: string[];
  data: string | null;
}

/** What a receipt commits to. */
export interface TrieReceipt {
  index: number;
  type: number;
  success: boolean;
  /**
   * A 32-byte zero post-state root in place of the status. The official relay encodes the receipts of synthetic
   * (HTS) transactions so; doing the same keeps `receiptsRoot` equal across relays for blocks that have them.
   */
  zeroPostState?: boolean;
  cumulativeGasUsed: bigint;
  /** The bloom as the mirror node recorded it; `0x` (none recorded) is encoded as an empty string, as recorded. */
  bloom: string;
  logs: TrieLog[];
}

const ZERO_ROOT = new Uint8Array(32);
const STATUS_SUCCESS = Uint8Array.of(1);
const STATUS_FAILURE = new Uint8Array(0);
// A cumulative gas of zero is the one-byte 0x00 (not the empty string) in the official relay's encoding.
const ZERO_GAS = Uint8Array.of(0);

export function encodeReceipt(r: TrieReceipt): Uint8Array {
  const postState = r.zeroPostState ? ZERO_ROOT : r.success ? STATUS_SUCCESS : STATUS_FAILURE;
  const gas = r.cumulativeGasUsed === 0n ? ZERO_GAS : uintBytes(r.cumulativeGasUsed);
  const logs = r.logs.map((log) => rlpList([rlpBytes(hexBytes(log.address)), rlpList(log.topics.map((t) => rlpBytes(hexBytes(t)))), rlpBytes(hexBytes(log.data))]));
  const body = rlpList([rlpBytes(postState), rlpBytes(gas), rlpBytes(hexBytes(r.bloom)), rlpList(logs)]);
  if (r.type === 0) return body;
  const typed = new Uint8Array(1 + body.length);
  typed[0] = r.type;
  typed.set(body, 1);
  return typed;
}

/** The receipts trie root; callers keep it, since it never changes once the block exists. */
export function receiptsRoot(receipts: TrieReceipt[]): string {
  return trieRoot(receipts.map((r) => [indexKey(r.index), encodeReceipt(r)]));
}

/** The 2048-bit bloom of the logs' addresses and topics (yellow paper, section 4.3.1). */
export function logsBloom(logs: TrieLog[]): string {
  if (logs.length === 0) return EMPTY_BLOOM;
  const bloom = new Uint8Array(256);
  for (const log of logs) {
    for (const item of [log.address, ...log.topics]) {
      const hash = keccakBytes(hexBytes(item));
      for (let i = 0; i < 6; i += 2) {
        const bit = ((hash[i] << 8) | hash[i + 1]) & 0x7ff;
        bloom[255 - (bit >> 3)] |= 1 << (bit & 7);
      }
    }
  }
  return `0x${Buffer.from(bloom).toString('hex')}`;
}
