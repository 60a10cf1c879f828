import { officialBlockNumberOrTag, positional } from './params.js';
import { traceBlock, tracerOption } from './trace.js';
import type { MethodEnv } from './types.js';

/**
 * The block and its contract results as eth_getBlockByNumber reads them (cached), then each transaction as
 * debug_traceTransaction traces it. The tracer defaults to `callTracer`, as on the official relay.
 */
export async function debug_traceBlockByNumber(params: unknown[], env: MethodEnv) {
  const [ref, options] = positional(params, 1, 2);
  const block = officialBlockNumberOrTag(ref, 0);
  const tracer = tracerOption(options, 'callTracer');
  return traceBlock(env, await env.reads.resolveBlock(block), 'number' in block ? `block ${block.number}` : block.tag, tracer);
}
