import { hash32, positional } from './params.js';
import { traceBlock, tracerOption } from './trace.js';
import type { MethodEnv } from './types.js';

/** As debug_traceBlockByNumber, with the block found by hash (GET /api/v1/blocks/{hash}, cached). */
export async function debug_traceBlockByHash(params: unknown[], env: MethodEnv) {
  const [hash, options] = positional(params, 1, 2);
  const tracer = tracerOption(options, 'callTracer');
  const blockHash = hash32(hash, 0);
  return traceBlock(env, await env.reads.blockByHash(blockHash), blockHash, tracer);
}
