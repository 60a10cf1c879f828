import { GatewayError } from '../errors.js';
import { positional, transactionHash } from './params.js';
import { traceTx, tracerOption } from './trace.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: GET /api/v1/contracts/results/{hash} (cached), then for `callTracer` GET .../{hash}/actions (cached) and
 * the EVM address of each entity named (cached), for `opcodeLogger` (the default, as in geth) GET .../{hash}/opcodes,
 * for `prestateTracer` GET .../{hash}/actions (cached), then per account touched GET /api/v1/contracts/{address} and
 * /api/v1/balances?account.id=&timestamp=lt:, or GET /api/v1/accounts/{address}?timestamp=lt:. Without a contract
 * result, GET /api/v1/contracts/results/logs?transaction.hash={hash} (cached) finds a synthetic HTS transaction, and
 * for `callTracer` the EVM address of the sender and recipient its Transfer log names (cached).
 */
export async function debug_traceTransaction(params: unknown[], env: MethodEnv) {
  const [hash, options] = positional(params, 1, 2);
  const txHash = transactionHash(hash, 0);
  const tracer = tracerOption(options, 'opcodeLogger');
  const result = await env.reads.contractResult(txHash);
  // Read only when there is no contract result: most transactions traced have one.
  const logs = result ? [] : await env.reads.transactionLogs(txHash);
  // The official relay's words for an unknown hash, with or without a tracer.
  if (!result && logs.length === 0) throw new GatewayError('RESOURCE_NOT_FOUND', `Failed to retrieve transaction information for ${hash}`);
  return traceTx(env, { result, logs }, tracer);
}
