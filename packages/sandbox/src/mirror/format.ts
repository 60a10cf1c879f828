/** Value formats of the mirror node's JSON: timestamps, entity ids, hex, tinybar. */

export const WEIBAR_PER_TINYBAR = 10_000_000_000n;

export { timestampNanos } from '../ledger/ids.js';

/** Hex quantity or data from the EVM (`0x1a`) as a safe integer. */
export function hexNumber(hex: string | null | undefined): number {
  return hex ? Number(BigInt(hex)) : 0;
}

/** A quantity as minimal hex digits (`0x1a`), as the mirror node writes fee fields. */
export function hexQuantity(value: bigint): string {
  return `0x${value.toString(16)}`;
}

export function weibarToTinybar(weibar: bigint): bigint {
  return weibar / WEIBAR_PER_TINYBAR;
}

/** A JSON number for tinybar amounts; balances beyond 2^53 cannot occur on a ledger with 50 billion HBAR. */
export function tinybarNumber(weibarHex: string | null | undefined): number {
  return Number(weibarToTinybar(BigInt(weibarHex ?? '0x0')));
}

/**
 * A signature value as the real node stores it: the bytes of its RLP integer, so without leading zero bytes (importer
 * EthereumTransaction.signatureR/S, rendered by rest ContractResultDetailsViewModel as toHexStringNonQuantity).
 */
export function rlpIntegerBytes(quantity: string): string {
  const value = BigInt(quantity);
  if (value === 0n) return '0x';
  const digits = value.toString(16);
  return `0x${digits.length % 2 ? '0' : ''}${digits}`;
}

/** 0x + 64 hex, lower case: topics, storage slots and values, an authorization's r and s. */
export function word(hex: string): string {
  return `0x${hex.replace(/^0x/, '').toLowerCase().padStart(64, '0')}`;
}

/** Accepts `0.0.N`, `0.N` and `N` as the real node does; other shards and realms do not exist here. */
export function entityNum(id: string): number | undefined {
  if (!/^(\d{1,10}\.){0,2}\d{1,10}$/.test(id)) return undefined;
  const parts = id.split('.').map(Number);
  const num = parts.pop() as number;
  return parts.every((p) => p === 0) ? num : undefined;
}

/** A 20-byte EVM address from `0x…`, bare hex or `0.0.<hex>`, lower case with 0x; undefined if it is not one. */
export function evmAddress(value: string): string | undefined {
  const m = /^(?:0\.0\.|0\.)?(?:0x)?([0-9a-fA-F]{40})$/.exec(value);
  return m ? `0x${m[1].toLowerCase()}` : undefined;
}

/** 48-byte ledger hashes travel base64-encoded in transaction listings. */
export function hexToBase64(hex: string): string {
  return Buffer.from(hex.replace(/^0x/, ''), 'hex').toString('base64');
}

/**
 * A transaction id in the mirror node's spelling, `0.0.2-1700000000-000000123` (nanos zero-padded to 9 digits),
 * from that spelling or an unpadded one; undefined when it is not a transaction id.
 */
export function canonicalTransactionId(id: string): string | undefined {
  const m = /^(\d{1,10}\.\d{1,10}\.\d{1,10})-(\d{1,19})-(\d{1,9})$/.exec(id);
  return m ? `${m[1]}-${m[2]}-${m[3].padStart(9, '0')}` : undefined;
}

/** The valid-start timestamp encoded in a transaction id. */
export function validStartOf(transactionId: string): string {
  const [, seconds, nanos] = transactionId.split('-');
  return `${seconds}.${nanos.padStart(9, '0')}`;
}
