/**
 * The exact text of request ids, for numbers JSON.parse would round (above 2^53). Reads only the `id` members of the
 * top-level object, or of each object in a top-level array, from text JSON.parse has already accepted; like
 * JSON.parse, the last of repeated keys wins (a lossless parser that refuses duplicate keys would make such a body
 * fail instead).
 */

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipSpace(text: string, i: number): number {
  while (WHITESPACE.has(text.charCodeAt(i))) i++;
  return i;
}

/** `text[i]` opens a string; returns the index after its closing quote. */
function skipString(text: string, i: number): number {
  for (i++; ; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
}

/** Returns the index after the value that starts at `i` (no recursion: nesting is only counted). */
function skipValue(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return skipString(text, i);
  if (first !== '{' && first !== '[') {
    while (i < text.length && !',]} \t\n\r'.includes(text[i])) i++;
    return i;
  }
  let depth = 0;
  for (;;) {
    const c = text[i];
    if (c === '"') {
      i = skipString(text, i);
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
    i++;
  }
}

/** `text[i]` opens an object; its last `id` member's text, and the index after the object. */
function idOfObject(text: string, i: number): { id?: string; end: number } {
  let id: string | undefined;
  i = skipSpace(text, i + 1);
  if (text[i] === '}') return { end: i + 1 };
  for (;;) {
    const keyStart = i;
    i = skipString(text, i);
    // Short keys only can spell "id", escapes included ("\u0069d").
    const isId = i - keyStart <= 14 && JSON.parse(text.slice(keyStart, i)) === 'id';
    i = skipSpace(text, skipSpace(text, i) + 1);
    const valueStart = i;
    i = skipValue(text, i);
    if (isId) id = text.slice(valueStart, i);
    i = skipSpace(text, i);
    if (text[i] === ',') i = skipSpace(text, i + 1);
    else return { id, end: i + 1 };
  }
}

/** For a top-level object, its id text; for an array, each element's (undefined where it is no object or has none). */
export function rawIds(text: string): string | undefined | Array<string | undefined> {
  let i = skipSpace(text, 0);
  if (text[i] === '{') return idOfObject(text, i).id;
  const ids: Array<string | undefined> = [];
  i = skipSpace(text, i + 1);
  while (text[i] !== ']') {
    if (text[i] === '{') {
      const { id, end } = idOfObject(text, i);
      ids.push(id);
      i = end;
    } else {
      ids.push(undefined);
      i = skipValue(text, i);
    }
    i = skipSpace(text, i);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return ids;
}
