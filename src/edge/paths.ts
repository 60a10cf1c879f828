/**
 * The one path normaliser: the edge routes, and the REST passthrough and the MCP REST tool forward, only what it
 * returns. Upstream servers resolve `..`, `%2e%2e`, `..%2f` and `..\` as a step up, so a path carrying one in any
 * spelling could walk out of the API prefix to wherever the operator's credential opens doors.
 */

/** Slashes, backslashes and dots in their percent-encoded spellings, which change a path's structure. */
const STRUCTURAL = /%(2e|2f|5c)/gi;
const ENCODED_BYTE = /%([0-9a-f]{2})/gi;
/** Rounds of decoding to see through double encodings (`%252e`); a path still changing after that is refused. */
const DECODE_ROUNDS = 4;

export interface NormalisedPath {
  /** The path with encoded slashes, dots and backslashes decoded and repeated slashes collapsed; other escapes kept. */
  path: string;
  /** The path has a `.` or `..` segment (in any spelling, at any depth of encoding) or a control character. */
  unsafe: boolean;
}

/** No escape, backslash, dot or control character: nothing to decode and no dot segment, so only `//` could change it. */
const PLAIN = /^[^%\\.\u0000-\u001f\u007f]*$/;

export function normalisePath(raw: string): NormalisedPath {
  // Most request paths (`/ethereum/rpc`) are already normal; the full pass below costs several regular expressions.
  if (PLAIN.test(raw) && !raw.includes('//')) return { path: raw, unsafe: false };
  const path = raw
    .replace(STRUCTURAL, (m) => (m[2] === 'e' || m[2] === 'E' ? '.' : '/'))
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/');
  return { path, unsafe: hasDotSegment(raw) };
}

function hasDotSegment(raw: string): boolean {
  let decoded = raw;
  for (let round = 0; ; round++) {
    const next = decoded.replace(ENCODED_BYTE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === decoded) break;
    if (round === DECODE_ROUNDS) return true;
    decoded = next;
  }
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return true;
  return decoded.split(/[/\\]/).some((segment) => segment === '.' || segment === '..');
}
