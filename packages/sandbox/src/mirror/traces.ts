/**
 * `/contracts/results/{transactionIdOrHash}/actions` and `/opcodes`, from the EVM's own traces of the transaction:
 * the actions are the frames of its call trace (geth's `callTracer`, which EDR implements) in execution order, the
 * opcodes its struct log (the mirror node re-executes the transaction for these, and so does the EVM here).
 * Callers and recipients are named by entity, as the real node names them: `0.0.N` and its long-zero address.
 */
import { failedExecution } from '../ledger/haltReasons.js';
import { LAST_SYSTEM_ACCOUNT, haltedTrace } from '../ledger/systemContractCalls.js';
import { EXCHANGE_RATE_ADDRESS, HTS_ADDRESS, PRNG_ADDRESS } from '../ledger/systemContracts.js';
import { longZeroAddress } from '../ledger/ids.js';
import type { LedgerTransaction, LedgerView } from '../ledger/view.js';
import { ethTransactionByIdOrHash } from './contractResults.js';
import { notFound } from './errors.js';
import { hexNumber, tinybarNumber } from './format.js';
import type { Route } from './http.js';
import { EQ, RANGE_OPS, VALUE, matcher, nextLink, page, parseQuery, within } from './query.js';

/** A frame of the EVM's `callTracer`. */
interface Frame {
  type: string;
  from: string;
  to?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  value?: string;
  calls?: Frame[];
}

interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  memory?: string[];
  storage?: Record<string, string>;
}

interface StructTrace {
  failed: boolean;
  gas: number;
  returnValue: string;
  structLogs: StructLog[];
}

const OPERATIONS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);
/**
 * Addresses the consensus node's tracer records a PRECOMPILE action for: the EVM's precompiles, and every other system
 * account (up to 0.0.750) but the system contracts, which answer as a precompile would (CustomMessageCallProcessor
 * handleNonExtantSystemAccount).
 */
const LAST_PRECOMPILE = LAST_SYSTEM_ACCOUNT;
const SYSTEM_CONTRACTS = new Set([HTS_ADDRESS, EXCHANGE_RATE_ADDRESS, PRNG_ADDRESS]);
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

const word = (hex: string) => `0x${hex.replace(/^0x/, '').padStart(64, '0')}`;
const utf8Hex = (text: string) => `0x${Buffer.from(text, 'utf8').toString('hex')}`;

function callType(frame: Frame): string {
  if (frame.type === 'CREATE' || frame.type === 'CREATE2') return 'CREATE';
  return frame.to && BigInt(frame.to) <= LAST_PRECOMPILE && !SYSTEM_CONTRACTS.has(frame.to.toLowerCase()) ? 'PRECOMPILE' : 'CALL';
}

/** The bytes a REVERT hands back: memory[offset, offset + size), offset on top of the stack, size below it. */
function revertData(log: StructLog): string | null {
  const stack = log.stack ?? [];
  if (log.op !== 'REVERT' || stack.length < 2) return null;
  const offset = Number(BigInt(stack[stack.length - 1]));
  const size = Number(BigInt(stack[stack.length - 2]));
  const memory = (log.memory ?? []).map((w) => w.replace(/^0x/, '')).join('');
  return `0x${memory.slice(offset * 2, (offset + size) * 2).padEnd(size * 2, '0')}`;
}

export function traceRoutes(view: LedgerView): Route[] {
  const callTraces = new Map<string, Promise<Frame>>();

  function executed(idOrHash: string): LedgerTransaction | undefined {
    const tx = ethTransactionByIdOrHash(view, idOrHash);
    if (!tx) throw notFound();
    return tx.evmExecuted ? tx : undefined;
  }

  function callTrace(tx: LedgerTransaction): Promise<Frame> {
    const hash = tx.evmHash ?? (tx.ethHash as string);
    let trace = callTraces.get(hash);
    if (!trace) {
      trace = (view.evm.request({ method: 'debug_traceTransaction', params: [hash, { tracer: 'callTracer' }] }) as Promise<Frame>)
        // Value sent to a system account halted the transaction, which the EVM here ran as a transfer.
        .then((frame) => (tx.haltReason === 'INVALID_CONTRACT_ID' ? haltedTrace(frame) : frame))
        .then((frame) =>
          // A consensus-node creation ran its init code as a call at the new address: its top frame is the CREATE.
          tx.name === 'CONTRACTCREATEINSTANCE' && tx.contractCall?.initcode ? { ...frame, type: 'CREATE', input: tx.contractCall.initcode } : frame,
        );
      callTraces.set(hash, trace);
      trace.catch(() => callTraces.delete(hash));
    }
    return trace;
  }

  /** The frames in execution order (depth first), as the mirror node lists actions. */
  function actions(tx: LedgerTransaction, top: Frame) {
    const rows: Array<Record<string, unknown> & { index: number }> = [];
    const visit = (frame: Frame, depth: number) => {
      const caller = view.account(frame.from);
      const recipient = frame.to ? view.account(frame.to) : undefined;
      // A halted frame's action carries the halt reason's name, as the consensus node's ActionStack records it.
      const haltReason = frame.error === undefined ? undefined : failedExecution(frame.error).haltReason;
      rows.push({
        call_depth: depth,
        call_operation_type: OPERATIONS.has(frame.type) ? frame.type : 'UNKNOWN',
        call_type: callType(frame),
        caller: caller?.id ?? null,
        // Only contracts make inner calls; the transaction's own caller is an account.
        caller_type: depth > 0 || caller?.isContract ? 'CONTRACT' : 'ACCOUNT',
        from: caller ? longZeroAddress(caller.num) : frame.from.toLowerCase(),
        gas: hexNumber(frame.gas),
        gas_used: hexNumber(frame.gasUsed),
        index: rows.length,
        input: frame.input,
        recipient: recipient?.id ?? null,
        // The real node names the type CONTRACT unless the recipient is a known account (ContractActionViewModel),
        // so a call to an address no entity has is a CONTRACT action without a recipient.
        recipient_type: recipient && !recipient.isContract && !frame.type.startsWith('CREATE') ? 'ACCOUNT' : 'CONTRACT',
        result_data: haltReason === undefined ? (frame.output ?? '0x') : utf8Hex(haltReason),
        result_data_type: frame.error === undefined ? 'OUTPUT' : haltReason === undefined ? 'REVERT_REASON' : 'ERROR',
        timestamp: tx.consensusTimestamp,
        to: recipient ? longZeroAddress(recipient.num) : (frame.to?.toLowerCase() ?? null),
        value: tinybarNumber(frame.value),
      });
      for (const child of frame.calls ?? []) visit(child, depth + 1);
    };
    visit(top, 0);
    return rows;
  }

  const actionRules = { index: { ops: RANGE_OPS, value: /^\d{1,10}$/ } };
  const flag = { ops: EQ, value: VALUE.boolean };
  const opcodeRules = { stack: flag, memory: flag, storage: flag };

  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/results\/([^/]+)\/actions$/,
      async handle(req) {
        const q = parseQuery(req.search, actionRules, { order: 'asc' });
        const tx = executed(req.params[0]);
        const all = tx ? actions(tx, await callTrace(tx)) : [];
        const filters = q.filters.get('index');
        const matches = matcher(filters, BigInt);
        const { rows, full } = page(
          within(all, (a) => BigInt(a.index), filters, BigInt),
          q,
          (a) => matches(BigInt(a.index)),
        );
        const last = rows.at(-1);
        return {
          actions: rows,
          links: { next: full && last ? nextLink(req.path, q, [['index', q.order === 'asc' ? 'gt' : 'lt', String(last.index)]]) : null },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/results\/([^/]+)\/opcodes$/,
      async handle(req) {
        const q = parseQuery(req.search, opcodeRules);
        const want = (name: string, fallback: boolean) => {
          const v = q.filters.get(name)?.at(-1)?.value;
          return v === undefined ? fallback : v === 'true';
        };
        const stack = want('stack', true);
        const memory = want('memory', false);
        const storage = want('storage', false);
        const tx = executed(req.params[0]);
        if (!tx) throw notFound();
        const record = await callTrace(tx);
        // Memory is always traced: a REVERT's reason is read from it, even when the caller did not ask for memory.
        const trace = (await view.evm.request({
          method: 'debug_traceTransaction',
          params: [tx.evmHash ?? tx.ethHash, { enableMemory: true, disableStack: false, disableStorage: !storage }],
        })) as StructTrace;
        return {
          // The spec's rule: the recipient, or the zero address for a creation.
          address: record.type.startsWith('CREATE') ? ZERO_ADDRESS : (record.to ?? ZERO_ADDRESS).toLowerCase(),
          contract_id: tx.contractId ?? null,
          failed: trace.failed,
          gas: trace.gas,
          opcodes: trace.structLogs.map((log) => ({
            depth: log.depth,
            gas: log.gas,
            gas_cost: log.gasCost,
            memory: memory ? (log.memory ?? []).map(word) : null,
            op: log.op,
            pc: log.pc,
            reason: revertData(log),
            stack: stack ? (log.stack ?? []).map(word) : null,
            storage: storage ? Object.fromEntries(Object.entries(log.storage ?? {}).map(([k, v]) => [word(k), word(v)])) : null,
          })),
          return_value: trace.returnValue ? `0x${trace.returnValue.replace(/^0x/, '')}` : '0x',
        };
      },
    },
  ];
}
