/**
 * The smart-contract service's own transactions, ContractCreate and ContractCall (the SDK's ContractCreateFlow and
 * ContractExecuteTransaction), run on the sandbox's EVM, and the `ContractFunctionResult` their records carry
 * (@hashgraph/proto `ContractCreateTransactionBody`, `ContractCallTransactionBody`, `ContractFunctionResult`).
 *
 * The payer is the EVM sender (its EVM address, the alias for ECDSA accounts), as on the network. A HAPI-created
 * contract lives at the long-zero address of its new contract id, as on the network; the EVM cannot create at a
 * chosen address, so the sandbox places the init code there and calls it: the constructor runs in the contract's own
 * context (storage, balance, CALLER, CALLVALUE), and what it returns becomes the contract's code. The gas the
 * network would charge on top of that call (CREATE's 32,000 and init-code words, the init code's calldata, 200 per
 * deposited byte) is added to the gas used.
 * Known difference: each such execution bumps the payer's EVM nonce, which the network leaves to EthereumTransactions.
 */
import { proto } from '@hashgraph/proto';
import type { EvmRequester, LedgerTransaction } from './view.js';
import { failedExecution, failureMessage } from './haltReasons.js';
import { accountIdProto, contractIdProto, idOf, int64, toBigInt } from './hapi.js';
import { entityNum } from './ids.js';

export const CONTRACT_METHODS: Record<string, string> = {
  contractCreateInstance: 'createContract',
  contractCall: 'contractCallMethod',
};

export type ContractWork =
  | {
      name: 'CONTRACTCREATEINSTANCE';
      /** Inline init code, or the file holding it as hex text (what ContractCreateFlow uploads). */
      initcode?: Uint8Array;
      fileId?: string;
      constructorParameters: Uint8Array;
      gas: bigint;
      initialBalanceTinybar: bigint;
    }
  | { name: 'CONTRACTCALL'; contractId: string; gas: bigint; amountTinybar: bigint; functionParameters: Uint8Array };

/** The work a contract body asks for, or the precheck status that refuses it. */
export function decodeContract(body: proto.TransactionBody, maxGas: bigint): ContractWork | string {
  if (body.data === 'contractCreateInstance') {
    const c = body.contractCreateInstance!;
    const fileId = c.fileID ? idOf(c.fileID) : undefined;
    if (c.fileID && !fileId) return 'INVALID_FILE_ID';
    if (!fileId && !c.initcode?.length) return 'CONTRACT_BYTECODE_EMPTY';
    const gas = toBigInt(c.gas);
    if (gas > maxGas) return 'MAX_GAS_LIMIT_EXCEEDED';
    if (toBigInt(c.initialBalance) < 0n) return 'CONTRACT_NEGATIVE_VALUE';
    return {
      name: 'CONTRACTCREATEINSTANCE',
      ...(fileId ? { fileId } : { initcode: c.initcode! }),
      constructorParameters: c.constructorParameters ?? new Uint8Array(),
      gas,
      initialBalanceTinybar: toBigInt(c.initialBalance),
    };
  }
  if (body.data === 'contractCall') {
    const c = body.contractCall!;
    const contractId = idOf(c.contractID);
    // The ingest's pure checks (hiero-consensus-node ContractCallHandler.pureChecks): a contract id, not 0.0.0, and
    // gas for at least the call's intrinsic cost, else the precheck refuses it. Whether anything is at that id is for
    // handling to find out (#startContract in chain.ts).
    if (!contractId || entityNum(contractId) === 0) return 'INVALID_CONTRACT_ID';
    const gas = toBigInt(c.gas);
    const functionParameters = c.functionParameters ?? new Uint8Array();
    if (gas < intrinsicGas(functionParameters, false)) return 'INSUFFICIENT_GAS';
    if (gas > maxGas) return 'MAX_GAS_LIMIT_EXCEEDED';
    if (toBigInt(c.amount) < 0n) return 'CONTRACT_NEGATIVE_VALUE';
    return { name: 'CONTRACTCALL', contractId, gas, amountTinybar: toBigInt(c.amount), functionParameters };
  }
  return 'NOT_SUPPORTED';
}

/** The init code a ContractCreate runs: the file's hex text decoded (or the inline code), then the constructor's arguments. */
export function initcodeOf(work: ContractWork & { name: 'CONTRACTCREATEINSTANCE' }, fileContents: Buffer | undefined): Buffer | string {
  let code: Buffer;
  if (work.fileId) {
    if (!fileContents) return 'INVALID_FILE_ID';
    const text = fileContents.toString('latin1').trim().replace(/^0x/, '');
    if (text.length === 0) return 'CONTRACT_FILE_EMPTY';
    if (!/^([0-9a-fA-F]{2})*$/.test(text)) return 'ERROR_DECODING_BYTESTRING';
    code = Buffer.from(text, 'hex');
  } else {
    code = Buffer.from(work.initcode!);
  }
  return Buffer.concat([code, Buffer.from(work.constructorParameters)]);
}

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

/** Calldata gas (EIP-2028): 4 per zero byte, 16 per other byte. */
function calldataGas(data: Uint8Array): bigint {
  let gas = 0n;
  for (const b of data) gas += b === 0 ? 4n : 16n;
  return gas;
}

/**
 * What a creation's intrinsic gas adds to a call's: CREATE's 32,000 and 2 per 32-byte word of init code (EIP-3860).
 * The consensus node charges a HAPI ContractCreate so: its payload is the init code (hiero-consensus-node
 * HevmTransactionFactory.fromHapiCreate), priced by HederaGasCalculatorImpl.transactionIntrinsicGas with Besu's
 * Shanghai `contractCreationCost`.
 */
function creationGas(initcode: Uint8Array): bigint {
  return 32_000n + 2n * BigInt(Math.ceil(initcode.length / 32));
}

/**
 * A transaction's intrinsic gas as the consensus node's pure checks count it (Besu's `transactionIntrinsicGasCost`
 * for the EVM version the network runs, called by ContractCallHandler and EthereumTransactionHandler.pureChecks with
 * no access list): 21,000, the call data, and for a creation CREATE's own part.
 */
export function intrinsicGas(data: Uint8Array, isCreation: boolean): bigint {
  return 21_000n + calldataGas(data) + (isCreation ? creationGas(data) : 0n);
}

export interface ContractRun {
  /** The hash the EVM knows the execution by. */
  evmHash: string;
  /** For a creation: the new contract's address, and its init code. */
  creation?: { address: string; initcode: Buffer };
}

/**
 * Sends the execution into the EVM's pool (it runs when the block is mined). Returns the run, or the status that
 * stopped it before the EVM (the payer cannot cover the gas and value).
 */
export async function startContractRun(
  evm: EvmRequester,
  opts: { from: string; to: string; gas: bigint; valueWeibar: bigint; gasPriceWeibar: bigint; data: Uint8Array; initcode?: Buffer },
): Promise<ContractRun | string> {
  const balance = BigInt((await evm.request({ method: 'eth_getBalance', params: [opts.from, 'pending'] })) as string);
  if (balance < opts.gas * opts.gasPriceWeibar + opts.valueWeibar) return 'INSUFFICIENT_PAYER_BALANCE';
  if (opts.gas < intrinsicGas(opts.initcode ?? opts.data, opts.initcode !== undefined)) return 'INSUFFICIENT_GAS';
  if (opts.initcode) await evm.request({ method: 'hardhat_setCode', params: [opts.to, hex(opts.initcode)] });
  await evm.request({ method: 'hardhat_impersonateAccount', params: [opts.from] });
  const evmHash = (await evm.request({
    method: 'eth_sendTransaction',
    params: [{ from: opts.from, to: opts.to, gas: `0x${opts.gas.toString(16)}`, gasPrice: `0x${opts.gasPriceWeibar.toString(16)}`, value: `0x${opts.valueWeibar.toString(16)}`, data: hex(opts.data) }],
  })) as string;
  return { evmHash, ...(opts.initcode ? { creation: { address: opts.to, initcode: opts.initcode } } : {}) };
}

export interface ContractOutcome {
  /** SUCCESS, or the status of the revert or halt. */
  result: string;
  /** For an exceptional halt: the consensus node's halt reason (the record's error message). */
  haltReason?: string;
  /** Gas as the network counts it (for a creation, with CREATE's own costs). */
  gasUsed: bigint;
  /** Gas the EVM already took from the payer. */
  evmGasUsed: bigint;
}

/** Reads the mined execution; a creation's returned code becomes the contract's code, or is removed on failure. */
export async function settleContractRun(evm: EvmRequester, run: ContractRun, gasLimit: bigint): Promise<ContractOutcome> {
  const receipt = (await evm.request({ method: 'eth_getTransactionReceipt', params: [run.evmHash] })) as { status: string; gasUsed: string };
  const evmGasUsed = BigInt(receipt.gasUsed);
  let gasUsed = evmGasUsed;
  let ok = receipt.status === '0x1';
  const frame = run.creation || !ok ? await topFrame(evm, run.evmHash) : undefined;
  let evmError = frame?.error;
  if (run.creation) {
    const runtime = Buffer.from((frame?.output ?? '0x').slice(2), 'hex');
    // The call paid 21,000 and the empty calldata; a creation also pays its intrinsic part, its init code's calldata
    // and the code deposit (200 a byte: Besu's ContractCreationProcessor, which the node requires to succeed).
    gasUsed += creationGas(run.creation.initcode) + calldataGas(run.creation.initcode) + 200n * BigInt(runtime.length);
    if (gasUsed > gasLimit) {
      ok = false;
      gasUsed = gasLimit;
      evmError ??= 'out of gas';
    }
    await evm.request({ method: 'hardhat_setCode', params: [run.creation.address, ok ? hex(runtime) : '0x'] });
  }
  if (ok) return { result: 'SUCCESS', gasUsed, evmGasUsed };
  const { status, haltReason } = failedExecution(evmError);
  return { result: status, ...(haltReason ? { haltReason } : {}), gasUsed, evmGasUsed };
}

/** The top call frame of a mined execution: its output, and why it failed (the EVM's words), if it did. */
export async function topFrame(evm: EvmRequester, evmHash: string): Promise<{ output?: string; error?: string } | undefined> {
  return ((await evm.request({ method: 'debug_traceTransaction', params: [evmHash, { tracer: 'callTracer' }] })) ?? undefined) as
    | { output?: string; error?: string }
    | undefined;
}

interface EvmLog {
  address: string;
  topics: string[];
  data: string;
}

const bytes = (h: string) => Buffer.from(h.replace(/^0x/, ''), 'hex');

/**
 * The record's `ContractFunctionResult` for an executed contract transaction (consensus-node call or creation, or an
 * EthereumTransaction): output, error message on failure (the revert data as hex, else the status), gas, logs,
 * the created contract's EVM address, sender and parameters.
 */
export async function functionResult(
  evm: EvmRequester,
  tx: LedgerTransaction,
  lookup: (address: string) => { id: string; num: number; evmAddress: string } | undefined,
): Promise<proto.IContractFunctionResult | undefined> {
  const evmHash = tx.evmHash ?? tx.ethHash;
  if (!evmHash || tx.evmExecuted === false) return undefined;
  const [receipt, frame] = (await Promise.all([
    evm.request({ method: 'eth_getTransactionReceipt', params: [evmHash] }),
    evm.request({ method: 'debug_traceTransaction', params: [evmHash, { tracer: 'callTracer' }] }),
  ])) as [{ logs: EvmLog[]; logsBloom: string; from: string; gasUsed: string } | null, { output?: string; gas?: string } | null];
  if (!receipt) return undefined;
  const output = frame?.output ?? '0x';
  const succeeded = tx.result === 'SUCCESS';
  const contract = tx.contractId ? lookup(tx.contractId) : undefined;
  const sender = lookup(receipt.from.toLowerCase());
  const result: proto.IContractFunctionResult = {
    contractCallResult: succeeded && tx.name !== 'CONTRACTCREATEINSTANCE' ? bytes(output) : new Uint8Array(),
    bloom: bytes(receipt.logsBloom),
    gasUsed: int64(tx.contractCall?.gasUsed ?? tx.gasUsed ?? BigInt(receipt.gasUsed)),
    logInfo: receipt.logs.map((log) => {
      const emitter = lookup(log.address.toLowerCase());
      return { ...(emitter ? { contractID: contractIdProto(emitter.id) } : {}), bloom: new Uint8Array(), topic: log.topics.map(bytes), data: bytes(log.data) };
    }),
  };
  if (!succeeded) result.errorMessage = failureMessage(tx, output);
  if (contract) result.contractID = contractIdProto(contract.id);
  if (contract && tx.name === 'CONTRACTCREATEINSTANCE' && succeeded) {
    result.evmAddress = { value: bytes(contract.evmAddress) };
    result.createdContractIDs = [contractIdProto(contract.id)];
  }
  if (sender) result.senderId = accountIdProto(sender.id);
  if (tx.contractCall) {
    result.gas = int64(tx.contractCall.gasLimit);
    result.amount = int64(tx.contractCall.amountTinybar);
    result.functionParameters = bytes(tx.contractCall.functionParameters);
  }
  return result;
}
