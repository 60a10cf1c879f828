/**
 * What an executed EVM transaction asked of the ledger through calls the EVM cannot model itself, read from its call
 * trace (geth's `callTracer`, which EDR implements) once the block is mined:
 * - token creations at 0x167 (HIP-358 `createFungibleToken` / `createNonFungibleToken`, the IHederaTokenService
 *   versions with the V1 expiry (uint32) and the V2 expiry (int64)): the EVM code (SystemContracts.sol) checks them
 *   and hands out the token's number, and the ledger then creates the token;
 * - value sent to a system account (0.0.1 to 0.0.750, EVM precompiles and system contracts included) other than with
 *   a token creation: hiero-consensus-node `CustomMessageCallProcessor` halts that frame with INVALID_CONTRACT_ID, and
 *   `FrameRunner.propagateHaltException` halts every frame above it too, so the whole transaction fails so, whatever
 *   the EVM here made of the call or of the frames around it.
 * - calls inside the transaction, without value, to a system account that is neither an EVM precompile nor a system
 *   contract: `CustomMessageCallProcessor.start` runs every frame through `handleNonExtantSystemAccount`, not only the
 *   top-level one, and it clears the frame's remaining gas: the call succeeds empty and the gas it was given is spent,
 *   where the EVM here spends none of it. The EVM's caller carried on with that gas; code that would have run out of
 *   it on the network is not modelled, only the gas charged.
 * Of the creations, only frames whose effects stand count: a frame that failed, or sits under one that did, changed
 * nothing.
 */
import { proto } from '@hashgraph/proto';
import { AbiCoder, Interface } from 'ethers';
import type { EvmRequester } from './view.js';
import { contractIdProto } from './hapi.js';
import { HTS_ADDRESS } from './systemContracts.js';
import { INFINITE_MAX_SUPPLY, type KeyRef, type TokenKeyRole, type TokenSpec } from './tokens.js';

/** A frame of the EVM's `callTracer`. */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  input: string;
  output?: string;
  error?: string;
  calls?: CallFrame[];
}

/** hiero-consensus-node `AddressChecks.isSystemAccount`: entity numbers up to 750 (`ledger.numReservedSystemEntities`). */
export const LAST_SYSTEM_ACCOUNT = 750n;

const KEY_VALUE = 'tuple(bool inheritAccountKey, address contractId, bytes ed25519, bytes ECDSA_secp256k1, address delegatableContractId)';
const TOKEN_KEYS = `tuple(uint256 keyType, ${KEY_VALUE} key)[] tokenKeys`;
const TOKEN = (expiry: string) =>
  `tuple(string name, string symbol, address treasury, string memo, bool tokenSupplyType, int64 maxSupply, bool freezeDefault, ${TOKEN_KEYS}, tuple(${expiry} second, address autoRenewAccount, ${expiry} autoRenewPeriod) expiry) token`;
const CREATES = new Interface([
  `function createFungibleToken(${TOKEN('uint32')}, uint64 initialTotalSupply, uint32 decimals)`,
  `function createFungibleToken(${TOKEN('int64')}, int64 initialTotalSupply, int32 decimals)`,
  `function createNonFungibleToken(${TOKEN('uint32')})`,
  `function createNonFungibleToken(${TOKEN('int64')})`,
]);

/** IHederaTokenService.TokenKey.keyType's bits, lowest first. */
const KEY_BITS: TokenKeyRole[] = ['admin', 'kyc', 'freeze', 'wipe', 'supply', 'feeSchedule', 'pause', 'metadata'];

/** The ledger's view of an address during the decoding: which account it is, and a contract's id. */
export interface AddressBook {
  accountOf(address: string): { id: string; isContract: boolean; key?: KeyRef } | undefined;
}

export interface TokenCreationCall {
  /** The token's id, handed out by 0x167. */
  tokenId: string;
  spec: TokenSpec;
}

export interface SystemContractCalls {
  creations: TokenCreationCall[];
  /**
   * Value sent with creation calls that stand. The EVM moved it to 0x167; on the network it never leaves the caller,
   * which pays the fee from it when the creation went ahead (`charged`).
   */
  creationPayments: Array<{ from: string; valueWeibar: bigint; charged: boolean }>;
  /** Whether any frame sent value to a system account: the network halts the transaction (INVALID_CONTRACT_ID). */
  valueToSystemAccount: boolean;
  /** Every value move of the frames that stood (the transaction's own included), to undo when it halts. */
  valueMoves: Array<{ from: string; to: string; valueWeibar: bigint }>;
  /** Gas the network spends on nested calls to system accounts without a precompile, beyond what the EVM spent. */
  systemAccountGas: bigint;
}

/** The frames in execution order: all of them, or only those whose effects stand. */
function frames(top: CallFrame, standing: boolean): CallFrame[] {
  const out: CallFrame[] = [];
  const visit = (frame: CallFrame) => {
    if (standing && frame.error !== undefined) return;
    out.push(frame);
    for (const child of frame.calls ?? []) visit(child);
  };
  visit(top);
  return out;
}

/** A frame that moved value to its recipient (a CALLCODE's value stays with the caller; a creation's is not a call). */
const isValueCall = (f: CallFrame) => f.type === 'CALL' && f.to !== undefined && f.value !== undefined && BigInt(f.value) > 0n;
const isSystemAccount = (address: string | undefined) => address !== undefined && BigInt(address) !== 0n && BigInt(address) <= LAST_SYSTEM_ACCOUNT;
const isCreationCall = (f: CallFrame) => f.type === 'CALL' && f.to?.toLowerCase() === HTS_ADDRESS && CREATES.getFunction(f.input.slice(0, 10)) !== null;
/** The network halts value sent to a system account, but for a token creation's (CustomMessageCallProcessor). */
const haltsTransaction = (f: CallFrame) => isValueCall(f) && isSystemAccount(f.to) && !isCreationCall(f);

/** Reads a transaction's call trace for the calls above. */
export async function systemContractCalls(
  evm: EvmRequester,
  evmHash: string,
  book: AddressBook,
  isSystemContract: (address: string) => boolean,
): Promise<SystemContractCalls> {
  const top = (await evm.request({ method: 'debug_traceTransaction', params: [evmHash, { tracer: 'callTracer' }] })) as CallFrame;
  const calls: SystemContractCalls = { creations: [], creationPayments: [], valueToSystemAccount: false, valueMoves: [], systemAccountGas: systemAccountGas(top, isSystemContract) };
  calls.valueToSystemAccount = frames(top, false).some(haltsTransaction);
  for (const frame of frames(top, true)) {
    const creation = isCreationCall(frame) ? tokenCreation(frame, book) : undefined;
    if (creation) calls.creations.push(creation);
    if (!isValueCall(frame)) continue;
    calls.valueMoves.push({ from: frame.from.toLowerCase(), to: frame.to!.toLowerCase(), valueWeibar: BigInt(frame.value!) });
    if (isCreationCall(frame)) calls.creationPayments.push({ from: frame.from.toLowerCase(), valueWeibar: BigInt(frame.value!), charged: creation !== undefined });
  }
  return calls;
}

/**
 * The call trace as the network's halt leaves it: the first frame that sent value to a system account, and every
 * frame above it, failed with INVALID_CONTRACT_ID (what the mirror node's actions show); nothing after it ran.
 */
export function haltedTrace<F extends CallFrame & { calls?: F[] }>(top: F): F {
  const mark = (frame: F): F | undefined => {
    if (haltsTransaction(frame)) return { ...frame, calls: [], output: '0x', error: HALT };
    const calls: F[] = [];
    for (const child of frame.calls ?? []) {
      const halted = mark(child);
      if (halted) return { ...frame, calls: [...calls, halted], output: '0x', error: HALT };
      calls.push(child);
    }
    return undefined;
  };
  return mark(top) ?? top;
}

const HALT = 'INVALID_CONTRACT_ID';

/** Besu's EVM precompiles of the network's EVM version (Cancun: 0x01 to 0x0a). */
const LAST_EVM_PRECOMPILE = 0x0an;

/** A frame's `gas` and `gasUsed` as callTracer reports them (hex quantities). */
type GasFrame = CallFrame & { gas?: string; gasUsed?: string };

/**
 * The gas nested calls to system accounts without a precompile would have spent on the network, beyond what they
 * spent here: all they were given. Frames under one that halted (an error other than a revert) are left out, since
 * the halt already spent all of its gas; a revert hands back only the gas its frame had left.
 */
export function systemAccountGas(top: CallFrame, isSystemContract: (address: string) => boolean): bigint {
  let extra = 0n;
  const visit = (frame: GasFrame, depth: number) => {
    const to = frame.to;
    const target = to === undefined ? 0n : BigInt(to);
    const noValue = frame.value === undefined || BigInt(frame.value) === 0n;
    const isCall = frame.type !== 'CREATE' && frame.type !== 'CREATE2';
    if (depth > 0 && isCall && noValue && target > LAST_EVM_PRECOMPILE && target <= LAST_SYSTEM_ACCOUNT && !isSystemContract(to!)) {
      extra += BigInt(frame.gas ?? '0x0') - BigInt(frame.gasUsed ?? '0x0');
      return;
    }
    if (frame.error !== undefined && frame.error !== 'execution reverted') return;
    for (const child of frame.calls ?? []) visit(child, depth + 1);
  };
  visit(top, 0);
  return extra;
}

/** A creation 0x167 answered SUCCESS for, as the ledger's TokenSpec; undefined for any other call. */
function tokenCreation(frame: CallFrame, book: AddressBook): TokenCreationCall | undefined {
  const [code, address] = AbiCoder.defaultAbiCoder().decode(['int64', 'address'], frame.output ?? '0x');
  if (code !== 22n) return undefined;
  const call = CREATES.parseTransaction({ data: frame.input })!;
  const token = call.args.token;
  const nft = call.name === 'createNonFungibleToken';
  const caller = book.accountOf(frame.from);
  const keys: TokenSpec['keys'] = {};
  for (const { keyType, key } of token.tokenKeys) {
    const ref = keyRefOf(key, caller);
    if (!ref) continue;
    KEY_BITS.forEach((role, bit) => {
      if ((BigInt(keyType) >> BigInt(bit)) & 1n) keys[role] = ref;
    });
  }
  const finite = token.tokenSupplyType as boolean;
  const autoRenew = BigInt(token.expiry.autoRenewAccount) === 0n ? undefined : book.accountOf(token.expiry.autoRenewAccount)?.id;
  const spec: TokenSpec = {
    type: nft ? 'NON_FUNGIBLE_UNIQUE' : 'FUNGIBLE_COMMON',
    name: token.name,
    symbol: token.symbol,
    decimals: nft ? 0 : Number(call.args.decimals),
    memo: token.memo,
    initialSupply: nft ? 0n : BigInt(call.args.initialTotalSupply),
    supplyType: finite ? 'FINITE' : 'INFINITE',
    maxSupply: finite ? BigInt(token.maxSupply) : INFINITE_MAX_SUPPLY,
    freezeDefault: token.freezeDefault,
    treasury: book.accountOf(token.treasury)?.id ?? '',
    keys,
    ...(autoRenew ? { autoRenewAccount: autoRenew } : {}),
    ...(BigInt(token.expiry.autoRenewPeriod) > 0n ? { autoRenewPeriodSeconds: Number(token.expiry.autoRenewPeriod) } : {}),
  };
  return { tokenId: `0.0.${BigInt(address)}`, spec };
}

/**
 * A KeyValue as a key: the caller's own key when inherited (a contract's is its contract-ID key), a contract id, or
 * a public key. Contract-ID keys are shown as the mirror node shows any key it has no type for: `ProtobufEncoded`,
 * the `Key` message's bytes.
 */
function keyRefOf(
  key: { inheritAccountKey: boolean; contractId: string; ed25519: string; ECDSA_secp256k1: string; delegatableContractId: string },
  caller: ReturnType<AddressBook['accountOf']>,
): KeyRef | undefined {
  if (key.inheritAccountKey) return caller?.isContract ? contractKey('contractID', caller.id) : caller?.key;
  if (BigInt(key.contractId) !== 0n) return contractKey('contractID', `0.0.${BigInt(key.contractId)}`);
  if (key.ed25519 !== '0x') return { type: 'ED25519', key: key.ed25519.slice(2) };
  if (key.ECDSA_secp256k1 !== '0x') return { type: 'ECDSA_SECP256K1', key: key.ECDSA_secp256k1.slice(2) };
  if (BigInt(key.delegatableContractId) !== 0n) return contractKey('delegatableContractId', `0.0.${BigInt(key.delegatableContractId)}`);
  return undefined;
}

/** basic_types.proto `Key` with a `contractID` or a `delegatable_contract_id`. */
function contractKey(kind: 'contractID' | 'delegatableContractId', contractId: string): KeyRef {
  return { type: 'ProtobufEncoded', key: Buffer.from(proto.Key.encode({ [kind]: contractIdProto(contractId) }).finish()).toString('hex') };
}
