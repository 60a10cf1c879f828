/**
 * Transaction traces in geth's shapes, built from what the mirror node recorded: `callTracer` frames from a contract
 * result and its contract actions (`/contracts/results/{hash}/actions`), `opcodeLogger` (geth's struct logger) from
 * the mirror node's replay (`/contracts/results/{hash}/opcodes`).
 *
 * The mirror node names callers and recipients by entity (long-zero addresses); Ethereum tools expect the EVM
 * addresses they sent to, so each is resolved once through the entity's `evm_address` and kept (it never changes).
 */
import { AbiCoder } from 'ethers/abi';
import { RECIPIENT, SENDER, evmAddressOf } from './addresses.js';
import { tinybarToWeibar, toQuantity } from './convert.js';
import { SYNTHETIC_GAS } from './format.js';
import type { ContractResult, LedgerReads, MirrorLog } from './reads.js';

/** One row of `/contracts/results/{hash}/actions`, as the mirror node's OpenAPI document defines it. */
export interface ContractAction {
  call_depth: number;
  call_operation_type: string;
  call_type: string;
  caller: string | null;
  caller_type: string | null;
  from: string | null;
  gas: number;
  gas_used: number;
  index: number;
  input: string | null;
  recipient: string | null;
  recipient_type: string | null;
  result_data: string | null;
  result_data_type: 'OUTPUT' | 'REVERT_REASON' | 'ERROR';
  timestamp: string;
  to: string | null;
  value: number;
}

/** `/contracts/results/{hash}/opcodes`. */
export interface OpcodesResponse {
  address: string;
  contract_id: string | null;
  failed: boolean;
  gas: number;
  return_value: string | null;
  opcodes: Array<{
    depth: number;
    gas: number;
    gas_cost: number;
    memory: string[] | null;
    op: string;
    pc: number;
    reason?: string | null;
    stack: string[] | null;
    storage: Record<string, string> | null;
  }>;
}

/**
 * A geth `callTracer` frame. The transaction's own frame also always has `to` (null when unknown), `output` and
 * `calls` (empty when there are none, or with `onlyTopCall`), which geth leaves out when empty and the official relay
 * always sends; its acceptance suite (debug.spec.ts) checks for them.
 */
export interface CallFrame {
  type: string;
  from: string;
  to?: string | null;
  value?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
}

export interface OpcodeOptions {
  stack: boolean;
  memory: boolean;
  storage: boolean;
}

/** `Error(string)`, the revert payload of `require(cond, "reason")` and `revert("reason")`. */
const ERROR_SELECTOR = '0x08c379a0';
/** geth's words for an inner frame's ledger failure status (the official relay gives inner frames no error at all); other statuses are passed on as they are. */
const GETH_ERRORS: Record<string, string> = {
  CONTRACT_REVERT_EXECUTED: 'execution reverted',
  INSUFFICIENT_GAS: 'out of gas',
};

function hexOrEmpty(value: string | null | undefined): string {
  return value && /^0x[0-9a-fA-F]*$/.test(value) ? value.toLowerCase() : '0x';
}

function strip0x(value: string): string {
  return value.startsWith('0x') ? value.slice(2) : value;
}

/** The reason string of an `Error(string)` revert payload, as geth's callTracer reports it. */
export function revertReason(output: string | null | undefined): string | undefined {
  if (!output || !output.toLowerCase().startsWith(ERROR_SELECTOR)) return undefined;
  try {
    return AbiCoder.defaultAbiCoder().decode(['string'], `0x${output.slice(10)}`)[0] as string;
  } catch {
    return undefined;
  }
}

/** The text of hex bytes that spell printable ASCII (a ledger status such as `INVALID_CONTRACT_ID`), if they do. */
function asciiOf(data: string | null | undefined): string | undefined {
  if (!data || !/^0x([0-9a-fA-F]{2})+$/.test(data)) return undefined;
  const text = Buffer.from(data.slice(2), 'hex').toString('utf8');
  return /^[\x20-\x7e]+$/.test(text) ? text : undefined;
}

/** Mirror-node `ERROR` result data is the error's text in hex (`0x494e53...`); plain text is kept as it is. */
function errorText(data: string | null): string {
  if (!data || !/^0x([0-9a-fA-F]{2})+$/.test(data)) return data || 'execution failed';
  const text = asciiOf(data);
  return text === undefined ? data : (GETH_ERRORS[text] ?? text);
}

/**
 * A failed transaction's output: the mirror node's `error_message`, which is revert data in hex, or a ledger status in
 * text that the official relay sends hex-encoded (`INVALID_CONTRACT_ID` as `0x494e56...`).
 */
function failureOutput(errorMessage: string | null): string {
  if (!errorMessage) return '0x';
  return /^0x[0-9a-fA-F]*$/.test(errorMessage) ? errorMessage.toLowerCase() : `0x${Buffer.from(errorMessage, 'utf8').toString('hex')}`;
}

/** Every action of a transaction in execution order (the mirror node pages them 100 at a time at most). */
export function contractActions(reads: LedgerReads, hash: string): Promise<ContractAction[]> {
  return reads.cache.final(`actions:${hash}`, () =>
    reads.collect<ContractAction>(`/api/v1/contracts/results/${hash}/actions?limit=100&order=asc`, 'actions'),
  );
}

/** The replay's opcodes; not cached, since a trace can weigh megabytes and is rarely asked for twice. */
export function contractOpcodes(reads: LedgerReads, hash: string, opts: OpcodeOptions): Promise<OpcodesResponse | null> {
  return reads.mirror.get<OpcodesResponse>(
    `/api/v1/contracts/results/${hash}/opcodes?stack=${opts.stack}&memory=${opts.memory}&storage=${opts.storage}`,
  );
}

async function childFrame(reads: LedgerReads, action: ContractAction): Promise<CallFrame> {
  const type = action.call_operation_type;
  const [from, to] = await Promise.all([evmAddressOf(reads, action.from), evmAddressOf(reads, action.to)]);
  let input = hexOrEmpty(action.input);
  let output: string | undefined = action.result_data_type === 'ERROR' ? undefined : hexOrEmpty(action.result_data);
  // Some mirror nodes keep no init code or runtime code for inner creations; the created contract has both.
  if ((type === 'CREATE' || type === 'CREATE2') && action.result_data_type === 'OUTPUT' && input === '0x' && to) {
    const contract = await reads.mirror.get<{ bytecode?: string; runtime_bytecode?: string }>(`/api/v1/contracts/${to}`);
    input = hexOrEmpty(contract?.bytecode);
    output = hexOrEmpty(contract?.runtime_bytecode);
  }
  const frame: CallFrame = {
    type,
    from: from ?? '0x',
    ...(to ? { to } : {}),
    // Every frame type carries a value, STATICCALL and DELEGATECALL included (0x0), as the official relay sends them.
    value: toQuantity(tinybarToWeibar(action.value ?? 0)),
    gas: toQuantity(action.gas),
    gasUsed: toQuantity(action.gas_used),
    input,
    ...(output !== undefined && output !== '0x' ? { output } : {}),
  };
  if (action.result_data_type === 'REVERT_REASON') {
    frame.error = 'execution reverted';
    const reason = revertReason(action.result_data);
    if (reason !== undefined) frame.revertReason = reason;
  } else if (action.result_data_type === 'ERROR') {
    frame.error = errorText(action.result_data);
  }
  return frame;
}

/** Nests the flat, depth-annotated action list into frames; depth 0 is the transaction itself. */
function nest(frames: CallFrame[], actions: ContractAction[], top: CallFrame): void {
  const open: CallFrame[] = [top];
  actions.forEach((action, i) => {
    if (action.call_depth < 1) return;
    open.length = Math.min(open.length, action.call_depth);
    const parent = open[open.length - 1];
    (parent.calls ??= []).push(frames[i]);
    open.push(frames[i]);
  });
}

/**
 * geth's `callTracer` result: the top frame from the contract result (gas limit, gas used with the intrinsic cost,
 * input, output or revert), inner calls from the actions, nested by depth.
 */
export async function callTrace(reads: LedgerReads, result: ContractResult, opts: { onlyTopCall: boolean }): Promise<CallFrame> {
  const actions = await contractActions(reads, result.hash);
  const created = result.contract_id !== null && (result.created_contract_ids ?? []).includes(result.contract_id);
  const type = actions.find((a) => a.call_depth === 0)?.call_operation_type ?? (created || !result.to ? 'CREATE' : 'CALL');
  const [from, to] = await Promise.all([evmAddressOf(reads, result.from, SENDER), evmAddressOf(reads, created ? result.address : (result.to ?? result.address))]);
  const failed = result.status !== '0x1';
  const output = failed ? failureOutput(result.error_message) : hexOrEmpty(result.call_result);
  const top: CallFrame = {
    type,
    from: from ?? '0x',
    to: to ?? null,
    value: toQuantity(BigInt(result.amount ?? 0)),
    gas: toQuantity(result.gas_limit),
    gasUsed: toQuantity(result.gas_used ?? 0),
    input: hexOrEmpty(result.function_parameters),
    output,
  };
  if (failed) {
    // The ledger status as the mirror node names it (CONTRACT_REVERT_EXECUTED where geth says `execution reverted`):
    // the official relay's top frame, which its acceptance suites compare field for field.
    top.error = result.result;
    // An Error(string) payload's reason, or a ledger status spelled out (the official relay always sends one).
    top.revertReason = revertReason(output) ?? asciiOf(output) ?? '';
  }
  if (opts.onlyTopCall) return { ...top, calls: [] };
  const frames = await Promise.all(actions.map((a) => (a.call_depth < 1 ? Promise.resolve(top) : childFrame(reads, a))));
  nest(frames, actions, top);
  return { ...top, calls: top.calls ?? [] };
}

/**
 * The `callTracer` frame of a synthetic transaction (an HTS token transfer, logs without a contract result), which
 * never ran in the EVM: one CALL with no value, input, output or gas used, as the official relay answers it. A
 * Transfer log names the sender and recipient in its second and third topics; a log without them, the token alone.
 */
export async function syntheticCallTrace(reads: LedgerReads, log: MirrorLog): Promise<CallFrame> {
  const [sender, recipient] = log.topics.length >= 3 ? [topicAddress(log.topics[1]), topicAddress(log.topics[2])] : [log.address, log.address];
  // A topic carries an account's alias if it has one, else its long-zero address, which is resolved like any other.
  const [from, to] = await Promise.all([evmAddressOf(reads, sender, SENDER), evmAddressOf(reads, recipient, RECIPIENT)]);
  return { type: 'CALL', from: from ?? sender, to: to ?? recipient, gas: SYNTHETIC_GAS, gasUsed: '0x0', value: '0x0', input: '0x', output: '0x', calls: [] };
}

/** The address in an indexed topic: its last 20 bytes. */
function topicAddress(topic: string): string {
  return `0x${topic.slice(-40).toLowerCase()}`;
}

/**
 * geth's struct logger result. Words lose their `0x`, as geth prints them; parts the caller switched off are left
 * out. A transaction the mirror node cannot replay (it never reached the EVM) has an empty trace.
 */
export function opcodeTrace(response: OpcodesResponse | null, opts: OpcodeOptions) {
  if (!response) return { gas: 0, failed: false, returnValue: '', structLogs: [] };
  return {
    gas: response.gas,
    failed: response.failed,
    returnValue: strip0x(response.return_value ?? ''),
    structLogs: response.opcodes.map((o) => ({
      pc: o.pc,
      op: o.op,
      gas: o.gas,
      gasCost: o.gas_cost,
      depth: o.depth,
      ...(opts.stack ? { stack: (o.stack ?? []).map(strip0x) } : {}),
      ...(opts.memory ? { memory: (o.memory ?? []).map(strip0x) } : {}),
      ...(opts.storage ? { storage: Object.fromEntries(Object.entries(o.storage ?? {}).map(([k, v]) => [strip0x(k), strip0x(v)])) } : {}),
      ...(o.reason ? { reason: strip0x(o.reason) } : {}),
    })),
  };
}
