/**
 * RLP (yellow paper, appendix B) over bytes, for the block tries: each item is encoded as it is built and a list
 * joins its items' encodings, so a receipts root is computed without hex strings in between.
 */

const EMPTY = new Uint8Array(0);

function withHeader(offset: number, parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  let lengthBytes = 0;
  if (length >= 56) for (let n = length; n > 0; n = Math.floor(n / 256)) lengthBytes++;
  const out = new Uint8Array(1 + lengthBytes + length);
  if (lengthBytes === 0) out[0] = offset + length;
  else {
    out[0] = offset + 55 + lengthBytes;
    for (let i = lengthBytes, n = length; i > 0; i--, n = Math.floor(n / 256)) out[i] = n & 0xff;
  }
  let at = 1 + lengthBytes;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A byte string's encoding: a single byte below 0x80 stands for itself. */
export function rlpBytes(bytes: Uint8Array): Uint8Array {
  return bytes.length === 1 && bytes[0] < 0x80 ? bytes : withHeader(0x80, [bytes]);
}

/** A list's encoding from its items' encodings. */
export function rlpList(items: Uint8Array[]): Uint8Array {
  return withHeader(0xc0, items);
}

/** A non-negative integer as RLP has it: big-endian without leading zeros, zero as the empty string. */
export function uintBytes(value: bigint): Uint8Array {
  if (value === 0n) return EMPTY;
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

/** `0x`-prefixed hex data as bytes; an odd digit count gets a leading zero, null is empty. */
export function hexBytes(hex: string | null | undefined): Uint8Array {
  if (!hex || hex === '0x') return EMPTY;
  if (!hex.startsWith('0x')) throw new TypeError(`not 0x-prefixed hex data: ${hex.slice(0, 24)}`);
  const digits = hex.length % 2 ? `0${hex.slice(2)}` : hex.slice(2);
  const bytes = Buffer.from(digits, 'hex');
  // Buffer stops at the first non-hex digit instead of failing.
  if (bytes.length * 2 !== digits.length) throw new TypeError(`not hex data: ${hex.slice(0, 24)}`);
  return bytes;
}
