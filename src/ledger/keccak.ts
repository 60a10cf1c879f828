/**
 * Keccak-256 over bytes, for the tries and blooms the relay builds from a block's receipts. js-sha3 rather than
 * ethers' keccak256 (noble's): on these machines it hashes a 300-byte receipt leaf about 4x faster, and keccak was the
 * largest single share (17%) of answering a block the read cache did not hold yet.
 */
import sha3 from 'js-sha3';

export function keccakBytes(data: Uint8Array): Uint8Array {
  return new Uint8Array(sha3.keccak256.arrayBuffer(data));
}

/** As `0x`-prefixed hex. */
export function keccakHex(data: Uint8Array): string {
  return `0x${sha3.keccak256.hex(data)}`;
}
