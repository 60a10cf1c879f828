/** JSON with integers beyond 2^53 kept exact, for mirror-node answers whose amounts can pass it. */
import { parse as losslessParse } from 'lossless-json';

/**
 * A number token of 16 or more digits: below that every integer is within 2^53. Number tokens open the text or
 * follow `:`, `,` or `[`; a match inside a string (a hash after a colon, say) only costs the exact parse.
 */
const LONG_NUMBER = /(?:^|[:,[])\s*-?\d{16}/;

/**
 * Integers beyond 2^53 (balances in tinybar, amounts in weibar) become bigint instead of silently rounding. Most
 * answers hold none, and the exact parser costs several times JSON.parse, so it runs only on those that might.
 */
export function parseExact(text: string): unknown {
  if (!LONG_NUMBER.test(text)) return JSON.parse(text);
  return losslessParse(text, null, (s: string) => {
    const n = Number(s);
    return /^-?\d+$/.test(s) && !Number.isSafeInteger(n) ? BigInt(s) : n;
  });
}
