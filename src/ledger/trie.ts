/**
 * The root hash of a Merkle-Patricia trie (Ethereum yellow paper, appendix D) built from key/value pairs, as an
 * Ethereum block commits to its transactions and receipts. Nodes are encoded bottom-up straight to RLP bytes; a node
 * whose encoding is shorter than 32 bytes is embedded in its parent, any other is referenced by its keccak hash.
 */
import { keccakBytes, keccakHex } from './keccak.js';
import { rlpBytes, rlpList, uintBytes } from './rlp.js';

interface Entry {
  nibbles: Uint8Array;
  value: Uint8Array;
}

const EMPTY_STRING = Uint8Array.of(0x80);

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 0x0f;
  }
  return out;
}

/** Hex-prefix encoding of a nibble path, with the leaf flag. */
function hexPrefix(nibbles: Uint8Array, leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2;
  const flag = (leaf ? 2 : 0) + odd;
  const bytes = new Uint8Array(1 + (nibbles.length >> 1));
  let at = 0;
  if (odd) bytes[0] = (flag << 4) | nibbles[at++];
  else bytes[0] = flag << 4;
  for (let i = 1; i < bytes.length; i++, at += 2) bytes[i] = (nibbles[at] << 4) | nibbles[at + 1];
  return bytes;
}

/** How a child appears inside its parent: embedded when its encoding is short, else by hash. */
function reference(encoded: Uint8Array): Uint8Array {
  return encoded.length < 32 ? encoded : rlpBytes(keccakBytes(encoded));
}

function commonPrefixLength(entries: Entry[], depth: number): number {
  const first = entries[0].nibbles;
  for (let at = depth; ; at++) {
    if (at >= first.length) return at - depth;
    for (const e of entries) if (e.nibbles.length <= at || e.nibbles[at] !== first[at]) return at - depth;
  }
}

/** The RLP encoding of the node holding `entries`, whose keys agree on their first `depth` nibbles. */
function node(entries: Entry[], depth: number): Uint8Array {
  if (entries.length === 1) return rlpList([rlpBytes(hexPrefix(entries[0].nibbles.subarray(depth), true)), rlpBytes(entries[0].value)]);
  const shared = commonPrefixLength(entries, depth);
  if (shared > 0) return rlpList([rlpBytes(hexPrefix(entries[0].nibbles.subarray(depth, depth + shared), false)), reference(node(entries, depth + shared))]);
  const below: Entry[][] = Array.from({ length: 16 }, () => []);
  const branch: Uint8Array[] = new Array<Uint8Array>(17).fill(EMPTY_STRING);
  for (const e of entries) {
    if (e.nibbles.length === depth) branch[16] = rlpBytes(e.value);
    else below[e.nibbles[depth]].push(e);
  }
  for (let nibble = 0; nibble < 16; nibble++) if (below[nibble].length > 0) branch[nibble] = reference(node(below[nibble], depth + 1));
  return rlpList(branch);
}

/** Root of the trie holding `pairs` (distinct keys); the empty trie's root is keccak256(rlp("")). */
export function trieRoot(pairs: Array<[key: Uint8Array, value: Uint8Array]>): string {
  if (pairs.length === 0) return keccakHex(EMPTY_STRING);
  return keccakHex(node(pairs.map(([key, value]) => ({ nibbles: toNibbles(key), value })), 0));
}

/** The trie key of the i-th item of a block's list: rlp(i). */
export function indexKey(index: number): Uint8Array {
  return rlpBytes(uintBytes(BigInt(index)));
}
