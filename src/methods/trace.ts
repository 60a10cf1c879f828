/** What the debug_trace* methods share: the tracer option object and tracing one transaction with it. */
import { GatewayError } from '../errors.js';
import { prestateTrace } from '../ledger/prestate.js';
import type { BlockTx } from '../ledger/blocks.js';
import { callTrace, contractOpcodes, opcodeTrace, syntheticCallTrace } from '../ledger/trace.js';
import type { MirrorBlock } from '../ledger/reads.js';
import { bool, object } from './params.js';
import type { MethodEnv } from './types.js';

export const TRACERS = ['callTracer', 'opcodeLogger', 'prestateTracer'] as const;
export type Tracer =
  | { tracer: 'callTracer'; onlyTopCall: boolean }
  | { tracer: 'prestateTracer'; onlyTopCall: boolean }
  | { tracer: 'opcodeLogger'; stack: boolean; memory: boolean; storage: boolean };

/** The switches of each tracer's config, as the official relay's validators name them (CallTracerConfig, OpcodeLoggerConfig). */
const CALL_TRACER_KEYS = ['onlyTopCall'];
const OPCODE_LOGGER_KEYS = ['disableMemory', 'enableMemory', 'disableStack', 'disableStorage', 'fullStorage'];

/** A refusal of the trace options (param 1), in the official relay's words, which its debug suite matches on. */
function refused(detail: string): GatewayError {
  return new GatewayError('INVALID_PARAMETER', detail);
}

function flag(config: Record<string, unknown>, name: string): boolean | undefined {
  return config[name] as boolean | undefined;
}

/** A config of either tracer: every switch it sets a boolean (the official relay's TracerConfig type). */
function tracerConfig(value: unknown): Record<string, unknown> {
  const valid =
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    [...CALL_TRACER_KEYS, ...OPCODE_LOGGER_KEYS].every((k) => !(k in value) || typeof (value as Record<string, unknown>)[k] === 'boolean');
  if (!valid) refusedValue('tracerConfig', 'Expected TracerConfig', value);
  return value as Record<string, unknown>;
}

function refusedValue(property: string, expected: string, value: unknown): never {
  throw refused(`'${property}' for TracerConfigWrapper: ${expected}, value: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
}

/**
 * geth's trace options: `{tracer, tracerConfig}`, or the struct logger's switches (`enableMemory`, `disableStack`,
 * `disableStorage`) at the top level as geth takes them. Refused as the official relay refuses them
 * (validateTracerConfigWrapper): top-level switches together with `tracerConfig` or an explicit `tracer`, and one
 * tracer's switches in `tracerConfig` of the other.
 */
export function tracerOption(value: unknown, fallback: Tracer['tracer']): Tracer {
  const top = value === undefined || value === null ? {} : object(value, 1);
  if (top.tracer !== undefined && (typeof top.tracer !== 'string' || !(TRACERS as readonly string[]).includes(top.tracer))) {
    refusedValue('tracer', 'Expected TracerType', top.tracer);
  }
  const config = top.tracerConfig === undefined ? undefined : tracerConfig(top.tracerConfig);
  for (const key of OPCODE_LOGGER_KEYS) {
    if (key in top && typeof top[key] !== 'boolean') refusedValue(key, 'Expected boolean type', top[key]);
  }
  const topLevel = OPCODE_LOGGER_KEYS.some((k) => k in top);
  if (topLevel && config) throw refused("1: Cannot specify tracer config properties both at top level and in 'tracerConfig' for TracerConfigWrapper");
  if (topLevel && top.tracer !== undefined) {
    throw refused("1: Cannot specify tracer config properties at top level when 'tracer' is explicitly set for TracerConfigWrapper");
  }
  const nested = config ?? {};
  if (CALL_TRACER_KEYS.some((k) => k in nested) && top.tracer === 'opcodeLogger') {
    throw refused('1: callTracer config properties for TracerConfigWrapper are only valid when tracer=callTracer');
  }
  if (OPCODE_LOGGER_KEYS.some((k) => k in nested) && top.tracer !== 'opcodeLogger') {
    throw refused('1: opcodeLogger config properties for TracerConfigWrapper are only valid when tracer=opcodeLogger');
  }
  const name = (top.tracer as Tracer['tracer'] | undefined) ?? fallback;
  if (name === 'prestateTracer' && nested.diffMode !== undefined && nested.diffMode !== null && bool(nested.diffMode, 'tracerConfig.diffMode')) {
    // The official relay has no diff mode either; a plain prestate in its place would be misread as one.
    throw new GatewayError('INVALID_PARAMS', 'tracerConfig.diffMode of prestateTracer is not offered on this chain');
  }
  const onlyTopCall = flag(nested, 'onlyTopCall') ?? false;
  if (name === 'callTracer') return { tracer: name, onlyTopCall };
  if (name === 'prestateTracer') return { tracer: name, onlyTopCall };
  const switches = topLevel ? top : nested;
  return {
    tracer: 'opcodeLogger',
    stack: !(flag(switches, 'disableStack') ?? false),
    memory: flag(switches, 'enableMemory') ?? false,
    storage: !(flag(switches, 'disableStorage') ?? false),
  };
}

/**
 * One transaction traced: a contract result from what the mirror node recorded of its execution; a synthetic
 * transaction (an HTS token transfer, `result` null), which never ran in the EVM, with the official relay's minimal
 * traces: one CALL frame, an empty prestate, an empty struct log.
 */
export async function traceTx(env: MethodEnv, tx: Pick<BlockTx, 'result' | 'logs'>, tracer: Tracer): Promise<unknown> {
  const { result } = tx;
  if (tracer.tracer === 'callTracer') return result ? callTrace(env.reads, result, tracer) : syntheticCallTrace(env.reads, tx.logs[0]);
  if (tracer.tracer === 'prestateTracer') return result ? prestateTrace(env.reads, result, tracer) : {};
  return opcodeTrace(result ? await contractOpcodes(env.reads, result.hash, tracer) : null, tracer);
}

/**
 * Every transaction of a block traced, as geth answers `debug_traceBlock*`: `[{txHash, result}]`, in the block's
 * order, synthetic transactions included as eth_getBlockBy* lists them.
 */
export async function traceBlock(env: MethodEnv, block: MirrorBlock | null, label: string, tracer: Tracer) {
  if (!block) throw new GatewayError('UNKNOWN_BLOCK', label);
  const { txs } = await env.reads.blockContents(block);
  return Promise.all(txs.map(async (tx) => ({ txHash: tx.hash, result: await traceTx(env, tx, tracer) })));
}
