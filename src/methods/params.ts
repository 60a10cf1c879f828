/**
 * Validation of JSON-RPC params. A positional param is named by its index and refused in the official relay's words
 * (its predefined INVALID_PARAMETER / MISSING_REQUIRED_PARAMETER: `Invalid parameter 0: ...`, `Missing value for
 * required parameter 0`), which its acceptance suites match on; a field inside one is named by its path (INVALID_PARAMS).
 */
import { GatewayError } from '../errors.js';
import type { BlockRef, BlockTag } from '../ledger/reads.js';

export type { BlockRef, BlockTag };
export const BLOCK_TAGS = ['latest', 'earliest', 'pending', 'safe', 'finalized'] as const satisfies readonly BlockTag[];
export type NumberOrTag = { tag: BlockTag } | { number: number };

/** A positional param's index, or the path of a field inside one (`filter.address`). */
export type ParamName = number | string;

/** A field of a param: a positional param's own index still names it, as the official relay reports. */
function field(name: ParamName, key: string): ParamName {
  return typeof name === 'number' ? name : `${name}.${key}`;
}

/** A refused param; `reason` reads after the name: `must be ..., got ...`. */
export function invalidParam(name: ParamName, reason: string): GatewayError {
  if (typeof name === 'number') return new GatewayError('INVALID_PARAMETER', `${name}: value ${reason}`);
  return new GatewayError('INVALID_PARAMS', `${name} ${reason}`);
}

/**
 * The positional params of a call, checked for count. More params than a method takes are refused, nulls included,
 * as the official relay refuses them (its validateParams); a method that takes none accepts `[null]`, which the
 * official relay does too (it checks no params there). Within the count, a trailing null is an omitted optional
 * argument.
 */
export function positional(params: unknown, min: number, max: number): unknown[] {
  if (!Array.isArray(params)) throw new GatewayError('INVALID_PARAMS', 'params must be an array');
  if (max > 0 && params.length > max) throw new GatewayError('INVALID_PARAMS', `expected at most ${max} param${max === 1 ? '' : 's'}, got ${params.length}`);
  let end = params.length;
  while (end > min && params[end - 1] === null) end--;
  if (end < min) throw new GatewayError('MISSING_REQUIRED_PARAMETER', String(end));
  if (end > max) throw new GatewayError('INVALID_PARAMS', `expected at most ${max} param${max === 1 ? '' : 's'}, got ${end}`);
  return params.slice(0, end);
}

/** A quantity as the Ethereum JSON-RPC spec writes one: `0x`, then no leading zero (`0x0`, `0x1a`, not `0x01a`). */
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/;

export function quantity(value: unknown, name: ParamName): bigint {
  if (typeof value !== 'string' || !QUANTITY.test(value)) {
    throw invalidParam(name, `must be a hex quantity without leading zeros such as "0x1a", got ${JSON.stringify(value)}`);
  }
  return BigInt(value);
}

/** Up to 32 bytes of hex (a storage slot), leading zeros allowed; empty is zero. */
export function bytesMax32(value: unknown, name: ParamName): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{0,64}$/.test(value)) {
    throw invalidParam(name, `must be at most 32 bytes of hex, got ${JSON.stringify(value)}`);
  }
  return value === '0x' ? 0n : BigInt(value);
}

/** A hex quantity or a plain non-negative integer (some clients send counts as numbers). */
export function count(value: unknown, name: ParamName): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  const n = quantity(value, name);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidParam(name, 'is too large');
  return Number(n);
}

export function address(value: unknown, name: ParamName): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) {
    throw invalidParam(name, `must be a 20-byte hex address, got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

export function hash32(value: unknown, name: ParamName): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw invalidParam(name, `must be a 32-byte hex hash, got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

export function data(value: unknown, name: ParamName): string {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) {
    throw invalidParam(name, `must be hex data with an even number of digits, got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

export function bool(value: unknown, name: ParamName): boolean {
  if (typeof value !== 'boolean') throw invalidParam(name, `must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * The official relay's words for a refused block number and hash (its validators' BLOCK_NUMBER_ERROR and the
 * transaction / block hash errors, whose "Expected" is doubled there), which its debug suite matches on.
 */
const OFFICIAL_BLOCK_NUMBER = 'Expected 0x prefixed hexadecimal block number, or the string "latest", "earliest" or "pending"';
const OFFICIAL_HASH = 'Expected Expected 0x prefixed string representing the hash (32 bytes)';

/** A transaction hash, refused in the official relay's words. */
export function transactionHash(value: unknown, index: number): string {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase();
  throw new GatewayError('INVALID_PARAMETER', `${index}: ${OFFICIAL_HASH} of a transaction, value: ${String(value)}`);
}

/** As blockNumberOrTag, refused in the official relay's words. */
export function officialBlockNumberOrTag(value: unknown, index: number): NumberOrTag {
  if (!isBlockNumberOrTag(value)) throw new GatewayError('INVALID_PARAMETER', `${index}: ${OFFICIAL_BLOCK_NUMBER}, value: ${String(value)}`);
  return blockNumberOrTag(value, index);
}

/** As blockNumberOrTagOrHash, a plain string that is neither refused in the official relay's words. */
export function officialBlockNumberOrTagOrHash(value: unknown, index: number): BlockRef {
  if (typeof value === 'string' && !isBlockNumberOrTag(value) && !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw new GatewayError('INVALID_PARAMETER', `${index}: The value passed is not valid: ${value}. ${OFFICIAL_BLOCK_NUMBER} OR ${OFFICIAL_HASH} of a block`);
  }
  return blockNumberOrTagOrHash(value, index);
}

function isBlockNumberOrTag(value: unknown): boolean {
  try {
    blockNumberOrTag(value, 0);
    return true;
  } catch {
    return false;
  }
}

/** A block number or tag; absent means `latest`. */
export function blockNumberOrTag(value: unknown, name: ParamName): NumberOrTag {
  if (value === undefined || value === null) return { tag: 'latest' };
  if (typeof value === 'string' && (BLOCK_TAGS as readonly string[]).includes(value)) return { tag: value as BlockTag };
  if (typeof value === 'string' && /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/.test(value)) {
    const n = BigInt(value);
    if (n <= BigInt(Number.MAX_SAFE_INTEGER)) return { number: Number(n) };
  }
  throw invalidParam(name, `must be a hex block number without leading zeros or one of ${BLOCK_TAGS.join(', ')}, got ${JSON.stringify(value)}`);
}

/** A block number, tag or hash, including the EIP-1898 object form `{blockNumber}` / `{blockHash}`. */
export function blockNumberOrTagOrHash(value: unknown, name: ParamName): BlockRef {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value)) return { hash: value.toLowerCase() };
  if (value !== null && typeof value === 'object') {
    const obj = value as { blockHash?: unknown; blockNumber?: unknown };
    if (obj.blockHash !== undefined) return { hash: hash32(obj.blockHash, field(name, 'blockHash')) };
    if (obj.blockNumber !== undefined) return blockNumberOrTag(obj.blockNumber, field(name, 'blockNumber'));
    throw invalidParam(name, 'must have blockHash or blockNumber');
  }
  return blockNumberOrTag(value, name);
}

export function object(value: unknown, name: ParamName): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidParam(name, 'must be an object');
  return value as Record<string, unknown>;
}
