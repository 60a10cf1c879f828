/**
 * Translation between the ledger's shapes (mirror-node REST) and Ethereum's (JSON-RPC quantities and hashes).
 * Ledger hashes are 48 bytes; Ethereum clients expect 32, so every hash is cut to its first 32 bytes the same way,
 * which keeps a block's hash and its child's parentHash equal.
 */

/** 1 tinybar = 10^10 weibar: the ledger's EVM exposes 18 decimals, the ledger itself keeps 8. */
export const WEIBAR_PER_TINYBAR = 10_000_000_000n;

export const ZERO_HASH = `0x${'0'.repeat(64)}`;
export const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
export const EMPTY_BLOOM = `0x${'0'.repeat(512)}`;
/** keccak256(rlp([])): the ommers hash of a block without uncles. */
export const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
/** Root of an empty Merkle-Patricia trie: what an Ethereum block without transactions carries. */
export const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

export function toQuantity(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

/** First 32 bytes of a ledger hash, lower case; shorter hashes are right-padded so the shape stays valid. */
export function toHash32(hash: string): string {
  const hex = hash.toLowerCase().replace(/^0x/, '');
  return `0x${hex.slice(0, 64).padEnd(64, '0')}`;
}

export function tinybarToWeibar(tinybar: number | bigint | string): bigint {
  return BigInt(tinybar) * WEIBAR_PER_TINYBAR;
}

/** Rounds down: the ledger cannot move fractions of a tinybar. */
export function weibarToTinybar(weibar: bigint): bigint {
  return weibar / WEIBAR_PER_TINYBAR;
}

/** Mirror-node timestamps are `"<seconds>.<nanos>"`; Ethereum block timestamps are whole seconds. */
export function timestampSeconds(timestamp: string): number {
  return Number(timestamp.split('.')[0]);
}

/** A mirror-node hex field (`"0x"`, `null`, `"0x00ab"`) as a quantity: empty means zero, leading zeros dropped. */
export function hexFieldToQuantity(value: string | null | undefined, scale = 1n): string {
  if (value === null || value === undefined || value === '0x' || value === '') return '0x0';
  return toQuantity(BigInt(value.startsWith('0x') ? value : `0x${value}`) * scale);
}

/** A mirror-node money field that may be a number (tinybar) or a hex string (tinybar), as weibar. */
export function tinybarFieldToWeibar(value: string | number | null | undefined): string {
  if (typeof value === 'number') return toQuantity(tinybarToWeibar(value));
  return hexFieldToQuantity(value, WEIBAR_PER_TINYBAR);
}

/** Fixed-size hex data (a bloom, a storage word): empty becomes all zeros of that size. */
export function fixedBytes(value: string | null | undefined, bytes: number): string {
  const hex = (value ?? '').toLowerCase().replace(/^0x/, '');
  return `0x${hex.padStart(bytes * 2, '0').slice(-bytes * 2)}`;
}

/** EIP-2930's prices of an access list, per address and per storage key (the official relay's precheck counts them too). */
const ACCESS_LIST_ADDRESS_GAS = 2_400n;
const ACCESS_LIST_STORAGE_KEY_GAS = 1_900n;

/** Intrinsic gas of a transaction (EIP-2028 calldata prices, the creation surcharge and EIP-2930's access list). */
/** What an access list adds to a transaction's gas (EIP-2930): per address, and per storage key. */
export function accessListGas(accessList: ReadonlyArray<{ storageKeys: readonly string[] }>): bigint {
  let gas = 0n;
  for (const entry of accessList) gas += ACCESS_LIST_ADDRESS_GAS + ACCESS_LIST_STORAGE_KEY_GAS * BigInt(entry.storageKeys.length);
  return gas;
}

export function intrinsicGas(data: string, isCreate: boolean, accessList: ReadonlyArray<{ storageKeys: readonly string[] }> = []): bigint {
  let gas = (isCreate ? 53_000n : 21_000n) + accessListGas(accessList);
  for (let i = data.startsWith('0x') ? 2 : 0; i < data.length; i += 2) gas += data.slice(i, i + 2) === '00' ? 4n : 16n;
  return gas;
}
