import { GatewayError } from '../errors.js';
import { plainSingleResult, scanJson } from './jsonScan.js';
import { RawJson, toErrorObject, type RpcOutcome } from './jsonrpc.js';
import { fromUpstream } from './upstreamErrors.js';

const MEMBERS = ['id', 'result', 'error'] as const;

/**
 * Each call's outcome in an upstream's answer to calls sent with ids 0..count-1, in whatever order or ids it answers;
 * undefined when the body is not JSON (the pool then tries the next upstream). A plain answer's `result` is passed on
 * as the text it came as, never parsed and serialised again; an error, or anything unusual, is parsed and mapped as
 * `fromUpstream` says.
 */
export function outcomesOf(text: string, count: number): RpcOutcome[] | undefined {
  // Most answers: one call's result, written as the common nodes write it.
  const plain = count === 1 ? plainSingleResult(text) : undefined;
  if (plain !== undefined) return [{ result: new RawJson(plain) }];
  const scanned = scanJson(text, MEMBERS);
  if (!scanned) return undefined;
  const outcomes = new Array<RpcOutcome | undefined>(count);
  let numbered = 0;
  for (const o of scanned.objects) {
    const id = o?.members[0];
    // Only a number can name one of our calls; a string "0" does not.
    if (id === undefined || !(id.charCodeAt(0) === 0x2d || (id.charCodeAt(0) >= 0x30 && id.charCodeAt(0) <= 0x39))) continue;
    numbered++;
    const n = Number(id);
    if (!(Number.isInteger(n) && n >= 0 && n < count)) continue;
    const [, result, error] = o!.members;
    outcomes[n] = result !== undefined && error === undefined ? { result: new RawJson(result) } : fromUpstream(JSON.parse(text.slice(o!.start, o!.end)));
  }
  // A single answer without a numeric id (some nodes refuse batches that way, with an error and id null) answers every call.
  const fallback = numbered === 0 && scanned.objects.length === 1 ? fromUpstream(first(JSON.parse(text), scanned.array)) : undefined;
  for (let i = 0; i < count; i++) outcomes[i] ??= fallback ?? { error: toErrorObject(new GatewayError('UPSTREAM_UNAVAILABLE', 'upstream returned no answer for this call')) };
  return outcomes as RpcOutcome[];
}

const first = (value: unknown, array: boolean) => (array ? (value as unknown[])[0] : value);
