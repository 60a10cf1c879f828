/**
 * The root hash of a Merkle-Patricia trie (Ethereum yellow paper, appendix D) built from key/value pairs, as an
 * Ethereum block commits to its transactions and receipts. Nodes are built bottom-up from the sorted keys; a node
 * whose RLP encoding is shorter than 32 bytes is embedded in its parent, any other is referenced by its keccak hash.
 */
import { keccak256 } from 'ethers/crypto';
import { encodeRlp, getBytes, type RlpStructuredDataish } from 'ethers/utils';

interface Entry {
  nibbles: number[];
  value: Uint8Array;
}

function toNibbles(key: Uint8Array): number[] {
  const out: number[] = [];
  for (const byte of key) out.push(byte >> 4, byte & 0x0f);
  return out;
}

/** Hex-prefix encoding of a nibble path, with the leaf flag. */
function hexPrefix(nibbles: number[], leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2;
  const flag = (leaf ? 2 : 0) + odd;
  const all = odd ? [flag, ...nibbles] : [flag, 0, ...nibbles];
  const bytes = new Uint8Array(all.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (all[2 * i] << 4) | all[2 * i + 1];
  return bytes;
}

/** How a child appears inside its parent: embedded when its encoding is short, else by hash. */
function reference(node: RlpStructuredDataish): RlpStructuredDataish {
  const encoded = encodeRlp(node);
  return (encoded.length - 2) / 2 < 32 ? node : keccak256(encoded);
}

function commonPrefixLength(entries: Entry[], depth: number): number {
  const first = entries[0].nibbles;
  let n = 0;
  for (;;) {
    const at = depth + n;
    if (at >= first.length || entries.some((e) => e.nibbles.length <= at || e.nibbles[at] !== first[at])) return n;
    n++;
  }
}

function node(entries: Entry[], depth: number): RlpStructuredDataish {
  if (entries.length === 1) return [hexPrefix(entries[0].nibbles.slice(depth), true), entries[0].value];
  const shared = commonPrefixLength(entries, depth);
  if (shared > 0) return [hexPrefix(entries[0].nibbles.slice(depth, depth + shared), false), reference(node(entries, depth + shared))];
  const branch: RlpStructuredDataish[] = Array.from({ length: 17 }, () => '0x');
  for (let nibble = 0; nibble < 16; nibble++) {
    const below = entries.filter((e) => e.nibbles.length > depth && e.nibbles[depth] === nibble);
    if (below.length > 0) branch[nibble] = reference(node(below, depth + 1));
  }
  const here = entries.find((e) => e.nibbles.length === depth);
  if (here) branch[16] = here.value;
  return branch;
}

/** Root of the trie holding `pairs` (distinct keys); the empty trie's root is keccak256(rlp("")). */
export function trieRoot(pairs: Array<[key: Uint8Array, value: Uint8Array]>): string {
  if (pairs.length === 0) return keccak256(encodeRlp('0x'));
  const entries = pairs.map(([key, value]) => ({ nibbles: toNibbles(key), value }));
  return keccak256(encodeRlp(node(entries, 0)));
}

/** The trie key of the i-th item of a block's list: rlp(i). */
export function indexKey(index: number): Uint8Array {
  return getBytes(encodeRlp(minimalBytes(BigInt(index))));
}

/** A number as the shortest big-endian byte string (zero is empty), the way RLP encodes integers. */
export function minimalBytes(value: bigint): string {
  if (value === 0n) return '0x';
  const hex = value.toString(16);
  return `0x${hex.length % 2 ? '0' : ''}${hex}`;
}
