/** What the debug_trace* methods share: the tracer option object and tracing one transaction with it. */
import { GatewayError } from '../errors.js';
import { prestateTrace } from '../ledger/prestate.js';
import { callTrace, contractOpcodes, opcodeTrace } from '../ledger/trace.js';
import type { ContractResult, MirrorBlock } from '../ledger/reads.js';
import { bool, object } from './params.js';
import type { MethodEnv } from './types.js';

export const TRACERS = ['callTracer', 'opcodeLogger', 'prestateTracer'] as const;
export type Tracer =
  | { tracer: 'callTracer'; onlyTopCall: boolean }
  | { tracer: 'prestateTracer'; onlyTopCall: boolean }
  | { tracer: 'opcodeLogger'; stack: boolean; memory: boolean; storage: boolean };

function flag(config: Record<string, unknown>, top: Record<string, unknown>, name: string, where: string): boolean | undefined {
  const value = config[name] ?? top[name];
  return value === undefined || value === null ? undefined : bool(value, `${where}.${name}`);
}

/**
 * geth's trace options: `{tracer, tracerConfig}`, with the struct logger's switches (`enableMemory`, `disableStack`,
 * `disableStorage`) at the top level as geth takes them, or inside `tracerConfig` as the official relay also does.
 */
export function tracerOption(value: unknown, fallback: Tracer['tracer']): Tracer {
  const top = value === undefined || value === null ? {} : object(value, 'tracer options');
  const name = top.tracer ?? fallback;
  if (typeof name !== 'string' || !(TRACERS as readonly string[]).includes(name)) {
    throw new GatewayError('INVALID_PARAMS', `tracer must be one of ${TRACERS.join(', ')}, got ${JSON.stringify(name)}`);
  }
  const config = top.tracerConfig === undefined || top.tracerConfig === null ? {} : object(top.tracerConfig, 'tracerConfig');
  if (name === 'prestateTracer' && flag(config, {}, 'diffMode', 'tracerConfig')) {
    // The official relay has no diff mode either; a plain prestate in its place would be misread as one.
    throw new GatewayError('INVALID_PARAMS', 'tracerConfig.diffMode of prestateTracer is not offered on this chain');
  }
  const onlyTopCall = () => flag(config, {}, 'onlyTopCall', 'tracerConfig') ?? false;
  if (name === 'callTracer') return { tracer: name, onlyTopCall: onlyTopCall() };
  if (name === 'prestateTracer') return { tracer: name, onlyTopCall: onlyTopCall() };
  return {
    tracer: 'opcodeLogger',
    stack: !(flag(config, top, 'disableStack', 'tracer options') ?? false),
    memory: flag(config, top, 'enableMemory', 'tracer options') ?? false,
    storage: !(flag(config, top, 'disableStorage', 'tracer options') ?? false),
  };
}

export async function traceResult(env: MethodEnv, result: ContractResult, tracer: Tracer): Promise<unknown> {
  if (tracer.tracer === 'callTracer') return callTrace(env.reads, result, tracer);
  if (tracer.tracer === 'prestateTracer') return prestateTrace(env.reads, result, tracer);
  return opcodeTrace(await contractOpcodes(env.reads, result.hash, tracer), tracer);
}

/** Every transaction of a block traced, as geth answers `debug_traceBlock*`: `[{txHash, result}]`. */
export async function traceBlock(env: MethodEnv, block: MirrorBlock | null, label: string, tracer: Tracer) {
  if (!block) throw new GatewayError('UNKNOWN_BLOCK', label);
  const results = await env.reads.blockResults(block);
  return Promise.all(results.map(async (r) => ({ txHash: r.hash.slice(0, 66).toLowerCase(), result: await traceResult(env, r, tracer) })));
}
