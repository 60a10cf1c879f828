import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Production keys: a fixed prefix, then 192 random bits in base64url (URL-safe, no padding). */
export const KEY_PREFIX = 'pk_prod_';
const KEY_RANDOM_BYTES = 24;
/** Longer strings cannot be one of our keys; they are refused without hashing or a store look-up. */
export const MAX_KEY_LENGTH = 128;

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(KEY_RANDOM_BYTES).toString('base64url');
}

/**
 * SHA-256 of the key, hex. A plain hash suffices (no slow KDF): keys carry 192 random bits, so the hash cannot be
 * brute-forced, and a fast hash keeps verification cheap on the hot path (the one-shot `hash` costs a third of a
 * `createHash` object's round trip).
 */
export function hashKey(rawKey: string): string {
  return hash('sha256', rawKey, 'hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Short, non-secret, unrelated to the key's bits: safe for logs, the CLI and support conversations. */
export function newKeyId(): string {
  return `key_${randomBytes(6).toString('hex')}`;
}

export function newAccountId(): string {
  return `acc_${randomBytes(6).toString('hex')}`;
}
