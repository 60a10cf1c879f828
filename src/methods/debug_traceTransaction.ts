import { GatewayError } from '../errors.js';
import { hash32, positional } from './params.js';
import { traceResult, tracerOption } from './trace.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: GET /api/v1/contracts/results/{hash} (cached), then for `callTracer` GET .../{hash}/actions (cached) and
 * the EVM address of each entity named (cached), for `opcodeLogger` (the default, as in geth) GET .../{hash}/opcodes,
 * for `prestateTracer` GET .../{hash}/actions (cached), then per account touched GET /api/v1/contracts/{address} and
 * /api/v1/balances?account.id=&timestamp=lt:, or GET /api/v1/accounts/{address}?timestamp=lt:.
 */
export async function debug_traceTransaction(params: unknown[], env: MethodEnv) {
  const [hash, options] = positional(params, 1, 2);
  const tracer = tracerOption(options, 'opcodeLogger');
  const result = await env.reads.contractResult(hash32(hash, 0));
  if (!result) throw new GatewayError('TRANSACTION_NOT_FOUND', String(hash));
  return traceResult(env, result, tracer);
}
