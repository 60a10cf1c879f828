/**
 * What the consensus node decides about a transaction's top-level call before any code runs, where the EVM here would
 * decide otherwise (hiero-consensus-node `CustomMessageCallProcessor.start` and `ProxyWorldUpdater.tryLazyCreation`,
 * with the network's defaults `contracts.evm.allowCallsToNonContractAccounts: true` and
 * `contracts.evm.nonExtantContractsFail: 0`, under which `TransactionProcessor` and `FrameBuilder` let a call target an
 * account without code, or no account at all):
 * - a system account (0.0.1 to 0.0.750) that is neither an EVM precompile nor a system contract answers an empty
 *   success and keeps all the gas left (`handleNonExtantSystemAccount` clears the frame's remaining gas), so the
 *   transaction uses its whole gas limit;
 * - value sent to a long-zero address no account has would lazy-create an account there, which the node refuses for
 *   long-zero addresses (`DispatchingEvmFrameState.tryLazyCreation`: INVALID_ALIAS_KEY); the halt keeps the whole gas
 *   limit, and the status is INVALID_ALIAS_KEY (`CustomExceptionalHaltReason.statusFor`).
 * Value sent to a system account halts with INVALID_CONTRACT_ID wherever it happens (systemContractCalls.ts).
 */
import { longZeroNum } from './ids.js';
import { LAST_SYSTEM_ACCOUNT } from './systemContractCalls.js';

/** The EVM precompiles of the network's EVM version (Besu's Cancun set, 0x01 to 0x0a). */
const LAST_EVM_PRECOMPILE = 0x0a;

export interface PresetOutcome {
  result: string;
  haltReason?: string;
  gasUsed: bigint;
}

/** A call without value to a system account that is neither an EVM precompile nor a system contract: empty success. */
export function systemAccountNoop(to: string, valueWeibar: bigint, gasLimit: bigint, isSystemContract: boolean): PresetOutcome | undefined {
  const num = longZeroNum(to);
  if (num === undefined || num <= LAST_EVM_PRECOMPILE || BigInt(num) > LAST_SYSTEM_ACCOUNT) return undefined;
  return !isSystemContract && valueWeibar === 0n ? { result: 'SUCCESS', gasUsed: gasLimit } : undefined;
}

/** Value sent to a long-zero address past the system accounts that no account has: the lazy creation's halt. */
export function longZeroCreationHalt(to: string, valueWeibar: bigint, gasLimit: bigint, targetExists: boolean): PresetOutcome | undefined {
  const num = longZeroNum(to);
  if (num === undefined || BigInt(num) <= LAST_SYSTEM_ACCOUNT || targetExists || valueWeibar === 0n) return undefined;
  return { result: 'INVALID_ALIAS_KEY', haltReason: 'INVALID_ALIAS_KEY', gasUsed: gasLimit };
}
