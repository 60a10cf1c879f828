import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors.js';

const BEARER = /^bearer\s+/i;

/**
 * The key a caller sent by any of the three methods (X-API-KEY, Authorization with or without `Bearer`, `/v1/<key>/`
 * path segment), plus a key sent inside a protocol (`extraKey`). Two different keys are refused rather than guessed.
 */
export function extractKey(headers: IncomingHttpHeaders, pathKey?: string, extraKey?: string): string | undefined {
  let found: string | undefined;
  const offer = (candidate: string | undefined) => {
    const key = candidate?.trim();
    if (!key) return;
    if (found !== undefined && found !== key) throw new GatewayError('KEY_CONFLICT');
    found = key;
  };
  const xApiKey = headers['x-api-key'];
  for (const value of Array.isArray(xApiKey) ? xApiKey : [xApiKey]) offer(value);
  offer(headers.authorization?.trim().replace(BEARER, ''));
  offer(pathKey);
  offer(extraKey);
  return found;
}
