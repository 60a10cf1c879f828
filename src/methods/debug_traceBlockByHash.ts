import { GatewayError } from '../errors.js';
import { hash32, positional } from './params.js';
import { traceBlock, tracerOption } from './trace.js';
import type { MethodEnv } from './types.js';

/** As debug_traceBlockByNumber, with the block found by hash (GET /api/v1/blocks/{hash}, cached). */
export async function debug_traceBlockByHash(params: unknown[], env: MethodEnv) {
  const [hash, options] = positional(params, 1, 2);
  const tracer = tracerOption(options, 'callTracer');
  const blockHash = hash32(hash, 0);
  const block = await env.reads.blockByHash(blockHash);
  // The official relay's answer to an unknown hash (RESOURCE_NOT_FOUND), unlike an unknown number.
  if (!block) throw new GatewayError('RESOURCE_NOT_FOUND', `Block ${String(hash)} not found`);
  return traceBlock(env, block, blockHash, tracer);
}
