/**
 * How the consensus node reports an EVM execution that did not succeed.
 *
 * The EVM (EDR, revm underneath) names why a frame stopped in its call trace's `error`: "execution reverted", "out of
 * gas", "StackUnderflow", "invalid opcode: INVALID", ... The consensus node runs Besu's EVM and reports a halt by
 * Besu's `ExceptionalHaltReason` name: hedera-services `CustomExceptionalHaltReason.statusFor` gives the status
 * (INSUFFICIENT_GAS only for running out of gas, LOCAL_CALL_MODIFICATION_EXCEPTION for a state change in a static
 * call, CONTRACT_EXECUTION_EXCEPTION for every other halt) and `errorMessageFor` puts the halt reason's name in the
 * `ContractFunctionResult.errorMessage`, which the mirror node serves as the contract result's `error_message`.
 */

import type { LedgerTransaction } from './view.js';

export interface FailedExecution {
  /** The ledger status of the transaction. */
  status: string;
  /** The record's `errorMessage` when the execution halted (the halt reason's name); absent for a revert. */
  haltReason?: string;
}

/** revm's halt names (spaces and case removed) → Besu's `ExceptionalHaltReason` names. */
const BESU_HALT_REASON: ReadonlyArray<[RegExp, string]> = [
  [/^outofgas|^memoryoog|^memorylimitoog|^precompileoog|^invalidoperandoog/, 'INSUFFICIENT_GAS'],
  [/^stackunderflow/, 'INSUFFICIENT_STACK_ITEMS'],
  [/^stackoverflow/, 'TOO_MANY_STACK_ITEMS'],
  [/^invalidjump/, 'INVALID_JUMP_DESTINATION'],
  [/^invalidopcode|^opcodenotfound|^invalidfeopcode|^notactivated/, 'INVALID_OPERATION'],
  [/^outofoffset/, 'INVALID_RETURN_DATA_BUFFER_ACCESS'],
  [/^statechangeduringstaticcall|^callnotallowedinsidestatic|^writeprotection/, 'ILLEGAL_STATE_CHANGE'],
  [/^createcontractsizelimit|^createinitcodesizelimit/, 'CODE_TOO_LARGE'],
  [/^createcontractstartingwithef/, 'INVALID_CODE'],
  [/^precompileerror/, 'PRECOMPILE_ERROR'],
  // Not revm's: the sandbox's own name for the halt of value sent to a system account (systemContractCalls.ts).
  [/^invalidcontractid/, 'INVALID_CONTRACT_ID'],
];

/** Besu halt reasons with a status of their own; every other halt is CONTRACT_EXECUTION_EXCEPTION. */
const STATUS_FOR_HALT: Readonly<Record<string, string>> = {
  INSUFFICIENT_GAS: 'INSUFFICIENT_GAS',
  ILLEGAL_STATE_CHANGE: 'LOCAL_CALL_MODIFICATION_EXCEPTION',
  INVALID_CONTRACT_ID: 'INVALID_CONTRACT_ID',
};

/** The status (and halt reason) of an execution whose top call frame failed with the EVM's `error`. */
export function failedExecution(evmError: string | undefined): FailedExecution {
  const name = (evmError ?? '').toLowerCase().replace(/[^a-z]/g, '');
  if (name === '' || name.startsWith('executionreverted') || name === 'revert') return { status: 'CONTRACT_REVERT_EXECUTED' };
  const haltReason = BESU_HALT_REASON.find(([pattern]) => pattern.test(name))?.[1] ?? 'INVALID_OPERATION';
  return { status: STATUS_FOR_HALT[haltReason] ?? 'CONTRACT_EXECUTION_EXCEPTION', haltReason };
}

/**
 * A failed execution's error message, as the consensus node puts it in the record (and the mirror node serves it):
 * the halt reason for an exceptional halt, else the revert data in hex, else the status.
 */
export function failureMessage(tx: LedgerTransaction, output: string): string {
  return tx.haltReason ?? (output !== '0x' ? output : tx.result);
}
