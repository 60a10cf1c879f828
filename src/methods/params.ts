/** Validation of positional JSON-RPC params; every failure is INVALID_PARAMS with a message naming the param. */
import { GatewayError } from '../errors.js';
import type { BlockRef, BlockTag } from '../ledger/reads.js';

export type { BlockRef, BlockTag };
export const BLOCK_TAGS = ['latest', 'earliest', 'pending', 'safe', 'finalized'] as const satisfies readonly BlockTag[];
export type NumberOrTag = { tag: BlockTag } | { number: number };

function invalid(detail: string): GatewayError {
  return new GatewayError('INVALID_PARAMS', detail);
}

/**
 * The positional params of a call, checked for count. More params than a method takes are refused, nulls included,
 * as the official relay refuses them (its validateParams); a method that takes none accepts `[null]`, which the
 * official relay does too (it checks no params there). Within the count, a trailing null is an omitted optional
 * argument.
 */
export function positional(params: unknown, min: number, max: number): unknown[] {
  if (!Array.isArray(params)) throw invalid('params must be an array');
  if (max > 0 && params.length > max) throw invalid(`expected at most ${max} param${max === 1 ? '' : 's'}, got ${params.length}`);
  let end = params.length;
  while (end > min && params[end - 1] === null) end--;
  if (end < min) throw invalid(`expected at least ${min} param${min === 1 ? '' : 's'}, got ${end}`);
  if (end > max) throw invalid(`expected at most ${max} param${max === 1 ? '' : 's'}, got ${end}`);
  return params.slice(0, end);
}

/** A quantity as the Ethereum JSON-RPC spec writes one: `0x`, then no leading zero (`0x0`, `0x1a`, not `0x01a`). */
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/;

export function quantity(value: unknown, name: string): bigint {
  if (typeof value !== 'string' || !QUANTITY.test(value)) {
    throw invalid(`${name} must be a hex quantity without leading zeros such as "0x1a", got ${JSON.stringify(value)}`);
  }
  return BigInt(value);
}

/** Up to 32 bytes of hex (a storage slot), leading zeros allowed; empty is zero. */
export function bytesMax32(value: unknown, name: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{0,64}$/.test(value)) {
    throw invalid(`${name} must be at most 32 bytes of hex, got ${JSON.stringify(value)}`);
  }
  return value === '0x' ? 0n : BigInt(value);
}

/** A hex quantity or a plain non-negative integer (some clients send counts as numbers). */
export function count(value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  const n = quantity(value, name);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid(`${name} is too large`);
  return Number(n);
}

export function address(value: unknown, name: string): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) {
    throw invalid(`${name} must be a 20-byte hex address, got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

export function hash32(value: unknown, name: string): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw invalid(`${name} must be a 32-byte hex hash, got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

export function data(value: unknown, name: string): string {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) {
    throw invalid(`${name} must be hex data with an even number of digits, got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

export function bool(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw invalid(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

/** A block number or tag; absent means `latest`. */
export function blockNumberOrTag(value: unknown, name = 'block'): NumberOrTag {
  if (value === undefined || value === null) return { tag: 'latest' };
  if (typeof value === 'string' && (BLOCK_TAGS as readonly string[]).includes(value)) return { tag: value as BlockTag };
  if (typeof value === 'string' && /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/.test(value)) {
    const n = BigInt(value);
    if (n <= BigInt(Number.MAX_SAFE_INTEGER)) return { number: Number(n) };
  }
  throw invalid(`${name} must be a hex block number without leading zeros or one of ${BLOCK_TAGS.join(', ')}, got ${JSON.stringify(value)}`);
}

/** A block number, tag or hash, including the EIP-1898 object form `{blockNumber}` / `{blockHash}`. */
export function blockNumberOrTagOrHash(value: unknown, name = 'block'): BlockRef {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value)) return { hash: value.toLowerCase() };
  if (value !== null && typeof value === 'object') {
    const obj = value as { blockHash?: unknown; blockNumber?: unknown };
    if (obj.blockHash !== undefined) return { hash: hash32(obj.blockHash, `${name}.blockHash`) };
    if (obj.blockNumber !== undefined) return blockNumberOrTag(obj.blockNumber, `${name}.blockNumber`);
    throw invalid(`${name} object must have blockHash or blockNumber`);
  }
  return blockNumberOrTag(value, name);
}

export function object(value: unknown, name: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(`${name} must be an object`);
  return value as Record<string, unknown>;
}
