/**
 * Reads chosen members of JSON text without building the value: the text of an object's members at the top level (or
 * of each object in a top-level array), for ids JSON.parse would round and for upstream answers whose `result` is
 * passed on as it came. Checks the whole text against the JSON grammar on the way, so text it accepts is text
 * JSON.parse accepts; it allocates little beyond the slices asked for, and uses no recursion (nesting is a stack).
 * Like JSON.parse, the last of repeated keys wins.
 */

/** One object at the top: where it starts and ends, and the text of each member asked for (undefined when absent). */
export interface ScannedObject {
  start: number;
  end: number;
  members: Array<string | undefined>;
}

/** The top-level value: one entry per object at the top, undefined for anything else (a number, a string, ...). */
export interface Scanned {
  array: boolean;
  objects: Array<ScannedObject | undefined>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const CONTROL = /[\x00-\x1f]/g;
const NONE = Number.MAX_SAFE_INTEGER;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
/** The escapes JSON allows after a backslash, but for `u`: `"` `\` `/` `b` `f` `n` `r` `t`. */
const isShortEscape = (c: number) => c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74;

class Scanner {
  /**
   * Where the next backslash and control character are: a string up to its first quote is taken as it is when neither
   * falls inside it. Both only move forward, so finding them costs one pass over the text in all.
   */
  private backslash = -1;
  private control = -1;

  constructor(private readonly text: string) {}

  skipSpace(i: number): number {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
      i++;
    }
  }

  /** `text[i]` is `"`: the index after the string's closing quote, or -1 when it is no valid JSON string. */
  stringEnd(i: number): number {
    const text = this.text;
    // indexOf runs as native code; the plain run of hex that fills Ethereum answers costs next to nothing.
    const quote = text.indexOf('"', i + 1);
    if (quote < 0) return -1;
    if (this.backslash <= i) {
      const b = text.indexOf('\\', i + 1);
      this.backslash = b < 0 ? NONE : b;
    }
    if (this.control <= i) {
      CONTROL.lastIndex = i + 1;
      this.control = CONTROL.test(text) ? CONTROL.lastIndex - 1 : NONE;
    }
    if (this.control < quote && this.control < this.backslash) return -1;
    if (this.backslash > quote) return quote + 1;
    return this.escapedStringEnd(i);
  }

  /** A string with an escape in it, one character at a time. */
  private escapedStringEnd(i: number): number {
    const text = this.text;
    for (i++; i < text.length; ) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) return i + 1;
      if (c < 0x20) return -1;
      if (c !== BACKSLASH) i++;
      else if (isShortEscape(text.charCodeAt(i + 1))) i += 2;
      else if (text.charCodeAt(i + 1) === 0x75 && isHex(text.charCodeAt(i + 2)) && isHex(text.charCodeAt(i + 3)) && isHex(text.charCodeAt(i + 4)) && isHex(text.charCodeAt(i + 5))) i += 6;
      else return -1;
    }
    return -1;
  }

  private digitsEnd(i: number): number {
    while (isDigit(this.text.charCodeAt(i))) i++;
    return i;
  }

  /** The index after the number at `i`, or -1 when there is none (`-`, leading zeros, `1.`, `1e` are not numbers). */
  numberEnd(i: number): number {
    const text = this.text;
    if (text.charCodeAt(i) === MINUS) i++;
    const first = text.charCodeAt(i);
    if (first === 0x30) i++;
    else if (first >= 0x31 && first <= 0x39) i = this.digitsEnd(i + 1);
    else return -1;
    if (text.charCodeAt(i) === 0x2e) {
      if (!isDigit(text.charCodeAt(i + 1))) return -1;
      i = this.digitsEnd(i + 1);
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 0x2b || sign === MINUS) i++;
      if (!isDigit(text.charCodeAt(i))) return -1;
      i = this.digitsEnd(i);
    }
    return i;
  }

  /** The index after the scalar (string, number, true, false, null) at `i`, or -1. */
  private scalarEnd(i: number): number {
    const text = this.text;
    const c = text.charCodeAt(i);
    if (c === QUOTE) return this.stringEnd(i);
    if (c === MINUS || isDigit(c)) return this.numberEnd(i);
    if (text.startsWith('true', i) || text.startsWith('null', i)) return i + 4;
    if (text.startsWith('false', i)) return i + 5;
    return -1;
  }

  /** A member's key and colon at `i`: where its value starts, or -1. */
  private keyEnd(i: number): number {
    if (this.text.charCodeAt(i) !== QUOTE) return -1;
    const end = this.stringEnd(i);
    if (end < 0) return -1;
    const colon = this.skipSpace(end);
    return this.text.charCodeAt(colon) === COLON ? this.skipSpace(colon + 1) : -1;
  }

  /**
   * The index after the one JSON value at `i`, or -1 when there is none. Checks it whole without building it or
   * noting anything inside: open containers are a stack of their kinds, so depth costs no recursion.
   */
  valueEnd(i: number): number {
    const text = this.text;
    const open: number[] = [];
    /** The innermost open container: OPEN_OBJECT, OPEN_ARRAY, or 0 outside any. */
    let inside = 0;
    for (;;) {
      // A value starts at i.
      const c = text.charCodeAt(i);
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        open.push(inside);
        inside = c;
        i = this.skipSpace(i + 1);
        if (text.charCodeAt(i) !== (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) {
          if (c === OPEN_OBJECT) i = this.keyEnd(i);
          if (i < 0) return -1;
          continue;
        }
        // An empty container: closed below like any other.
      } else {
        i = this.scalarEnd(i);
        if (i < 0) return -1;
      }
      // A value ended at i: close the containers it completes, then find the next value.
      for (;;) {
        if (inside === 0) return i;
        i = this.skipSpace(i);
        const next = text.charCodeAt(i);
        if (next === COMMA) {
          i = this.skipSpace(i + 1);
          if (inside === OPEN_OBJECT) i = this.keyEnd(i);
          if (i < 0) return -1;
          break;
        }
        if (next !== (inside === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) return -1;
        i++;
        inside = open.pop()!;
      }
    }
  }

  /** The object at `i` (its `{`) with the text of each member in `wanted`; undefined when it is not valid JSON. */
  object(i: number, wanted: readonly string[]): ScannedObject | undefined {
    const text = this.text;
    const found: ScannedObject = { start: i, end: -1, members: new Array<string | undefined>(wanted.length) };
    i = this.skipSpace(i + 1);
    if (text.charCodeAt(i) === CLOSE_OBJECT) {
      found.end = i + 1;
      return found;
    }
    for (;;) {
      const valueStart = this.keyEnd(i);
      if (valueStart < 0) return undefined;
      const valueEnd = this.valueEnd(valueStart);
      if (valueEnd < 0) return undefined;
      // Only spaces and the colon lie between the key's closing quote and its value.
      const keyEnd = text.lastIndexOf('"', valueStart - 1) + 1;
      // A key with an escape is compared as JSON.parse reads it.
      const raw = text.slice(i + 1, keyEnd - 1);
      const at = wanted.indexOf(raw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw);
      if (at >= 0) found.members[at] = text.slice(valueStart, valueEnd);
      i = this.skipSpace(valueEnd);
      const next = text.charCodeAt(i);
      if (next === CLOSE_OBJECT) {
        found.end = i + 1;
        return found;
      }
      if (next !== COMMA) return undefined;
      i = this.skipSpace(i + 1);
    }
  }
}

/**
 * Scans `text` as one JSON value, collecting the text of the members named in `wanted` of each object at the top.
 * Returns undefined when the text is not valid JSON (truncated, not JSON at all, or anything after the value).
 */
export function scanJson(text: string, wanted: readonly string[]): Scanned | undefined {
  const s = new Scanner(text);
  const objects: Array<ScannedObject | undefined> = [];
  let i = s.skipSpace(0);
  const array = text.charCodeAt(i) === OPEN_ARRAY;
  if (array) {
    i = s.skipSpace(i + 1);
    if (text.charCodeAt(i) === CLOSE_ARRAY) i++;
    else {
      for (;;) {
        i = topValue(i);
        if (i < 0) return undefined;
        i = s.skipSpace(i);
        const next = text.charCodeAt(i++);
        if (next === CLOSE_ARRAY) break;
        if (next !== COMMA) return undefined;
        i = s.skipSpace(i);
      }
    }
  } else i = topValue(i);
  if (i < 0) return undefined;
  return s.skipSpace(i) === text.length ? { array, objects } : undefined;

  /** The value at the top (or an element of the top array) at `at`, noted in `objects`: where it ends, or -1. */
  function topValue(at: number): number {
    if (text.charCodeAt(at) !== OPEN_OBJECT) {
      objects.push(undefined);
      return s.valueEnd(at);
    }
    const found = s.object(at, wanted);
    objects.push(found);
    return found ? found.end : -1;
  }
}

/** How geth, reth and anvil begin their answer to one call sent with id 0, as the gateway sends a single call. */
const PLAIN_SINGLE = '{"jsonrpc":"2.0","id":0,"result":';

/**
 * The text of `result` when `text` is exactly such an answer (`{"jsonrpc":"2.0","id":0,"result":<value>}`, spaces after
 * the value allowed); undefined for anything else, which `scanJson` then reads. The value is checked whole as
 * `scanJson` checks it; the three members before it need no reading: the prefix fixes them.
 */
export function plainSingleResult(text: string): string | undefined {
  if (!text.startsWith(PLAIN_SINGLE)) return undefined;
  const s = new Scanner(text);
  const end = s.valueEnd(PLAIN_SINGLE.length);
  if (end < 0) return undefined;
  const close = s.skipSpace(end);
  return text.charCodeAt(close) === CLOSE_OBJECT && s.skipSpace(close + 1) === text.length ? text.slice(PLAIN_SINGLE.length, end) : undefined;
}

/**
 * The exact text of request ids, for numbers JSON.parse would round (above 2^53): for a top-level object its `id`
 * member's text, for an array each element's (undefined where it is no object or has none). Undefined for text that is
 * not JSON.
 */
export function rawIds(text: string): string | undefined | Array<string | undefined> {
  const scanned = scanJson(text, ['id']);
  if (!scanned) return undefined;
  const ids = scanned.objects.map((o) => o?.members[0]);
  return scanned.array ? ids : ids[0];
}
