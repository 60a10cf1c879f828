import { GatewayError } from '../errors.js';
import { positional, transactionHash } from './params.js';
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
  const txHash = transactionHash(hash, 0);
  const tracer = tracerOption(options, 'opcodeLogger');
  const result = await env.reads.contractResult(txHash);
  // The official relay's words for an unknown hash, with or without a tracer.
  if (!result) throw new GatewayError('RESOURCE_NOT_FOUND', `Failed to retrieve transaction information for ${hash}`);
  return traceResult(env, result, tracer);
}
