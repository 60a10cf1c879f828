import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors.js';

/**
 * Checks `Authorization: Bearer <token>` against the operator's token in constant time: both sides are hashed first,
 * so neither the comparison nor an early length mismatch tells a caller how much of a guess was right.
 */
export function requireOperatorToken(req: IncomingMessage, expected: string): void {
  const header = req.headers.authorization ?? '';
  const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  if (!timingSafeEqual(a, b) || given === '') {
    throw new GatewayError('OPERATOR_TOKEN_INVALID', undefined, undefined, { 'www-authenticate': 'Bearer realm="admin"' });
  }
}
