import type { NetworkRef } from '../edge/route.js';
import type { VerifiedKey } from '../keys/types.js';
import { internalOf, serializeResponse, type ParsedBody, type RpcCall, type RpcErrorObject, type RpcOutcome } from './jsonrpc.js';

export interface CallContext {
  network: NetworkRef;
  requestId: string;
  key?: VerifiedKey;
  /** Receives the internal cause of each error answered (for the request's log line, never the client). */
  logInternal?(cause: string): void;
  /** Set when the calls came in a batch. */
  batch?: boolean;
}

/** Answers valid calls in order; the EVM forwarder and the ledger relay both implement it. */
export interface RpcBackend {
  handle(calls: RpcCall[], ctx: CallContext): Promise<RpcOutcome[]>;
}

/** A serialized answer, and the error a single request got, from which its HTTP status is chosen. */
export interface Answer {
  /** Undefined when nothing is owed (only notifications). */
  body: string | undefined;
  error?: RpcErrorObject;
}

/** Runs a parsed body through a backend and serializes the answer. */
export async function answer(parsed: ParsedBody, backend: RpcBackend, ctx: CallContext): Promise<Answer> {
  if (parsed.kind === 'error') return { body: serializeResponse('null', { error: parsed.error }), error: parsed.error };
  const entries = parsed.kind === 'single' ? [parsed.entry] : parsed.entries;
  const calls: RpcCall[] = [];
  for (const e of entries) if ('call' in e) calls.push(e.call);
  const outcomes = calls.length > 0 ? await backend.handle(calls, parsed.kind === 'batch' ? { ...ctx, batch: true } : ctx) : [];
  const parts: string[] = [];
  let error: RpcErrorObject | undefined;
  let next = 0;
  for (const e of entries) {
    if ('invalid' in e) {
      parts.push(serializeResponse(e.invalid, { error: e.error }));
      error = e.error;
    } else {
      const outcome = outcomes[next++];
      error = 'error' in outcome ? outcome.error : undefined;
      const cause = error ? internalOf(error) : undefined;
      if (cause) ctx.logInternal?.(cause);
      if (e.call.id !== undefined) parts.push(serializeResponse(e.call.id, outcome));
    }
  }
  if (parts.length === 0) return { body: undefined };
  return parsed.kind === 'single' ? { body: parts[0], error } : { body: `[${parts.join(',')}]` };
}
