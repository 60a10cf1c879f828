/**
 * The ledger sandbox's state machine: accounts with ids, a file service, and Ethereum transactions executed by a
 * real EVM, recorded in record-file blocks with consensus timestamps and fees in tinybar.
 *
 * Like the ledger, it works in two steps. A submission is prechecked at once (payer, fee, duplicate id, decodable
 * Ethereum data) and answered with a precheck status; it is then handled when the next block closes, in submission
 * order, and its receipt carries the final status (SUCCESS, WRONG_NONCE, CONTRACT_REVERT_EXECUTED, ...).
 * Block N of the ledger is block N of the EVM: the sandbox mines the EVM itself when a record file closes.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { PrivateKey, PublicKey } from '@hashgraph/sdk';
import { SigningKey, type Transaction } from 'ethers';
import { PREFUNDED_WEIBAR, RELAY_OPERATOR_ED25519_KEY, TREASURY_ED25519_KEY, localNodeAccounts, sandboxAccounts, type SandboxAccount } from '../accounts.js';
import { EvmNode, EvmRpcError } from '../evm.js';
import { childHash, hollowCompletion, isAliasRef, isHollow, resolveAliases, type AccountBook, type ChildRecord } from './aliases.js';
import { initcodeOf, intrinsicGas, settleContractRun, startContractRun, topFrame, type ContractOutcome, type ContractRun, type ContractWork } from './contracts.js';
import { failedExecution } from './haltReasons.js';
import { chargedGas, offeredGasPriceTinybar, settledGasCharges, upfrontGasCharges, type GasCharges } from './gasCharging.js';
import { decodeSigned, withCallData } from './ethereum.js';
import { FileStore } from './files.js';
import { JUMBO_MAX_CALL_DATA_BYTES } from './sizeLimits.js';
import { SYSTEM_ADMIN_ACCOUNT, TREASURY_ACCOUNT, payerFee } from './superusers.js';
import type { LedgerToken, TokenKeyRole, TokenMove } from './tokens.js';
import { TOKEN_FEES_TINYBAR, TokenService, type TokenOutcome } from './tokenService.js';
import type { TokenState } from './tokenState.js';
import type { NativeWork } from './nativeWork.js';
import { keyRef, publicKeyOf } from './tokenDecode.js';
import { HTS_ADDRESS, SystemContracts, type AccountAddresses } from './systemContracts.js';
import { LAST_SYSTEM_ACCOUNT, systemContractCalls, type AddressBook, type SystemContractCalls } from './systemContractCalls.js';
import { longZeroCreationHalt, systemAccountNoop, type PresetOutcome } from './topLevelCall.js';
import {
  ConsensusClock,
  canonicalTransactionIdString,
  entityId,
  entityNum,
  longZeroAddress,
  longZeroNum,
  recordFileName,
  timestampNanos,
  timestampString,
} from './ids.js';
import type { LedgerAccount, LedgerBlock, LedgerTransaction, LedgerView } from './view.js';

const WEIBAR_PER_TINYBAR = 10n ** 10n;
export const NODE_ACCOUNT = '0.0.3';
/** Where the ledger collects fees. */
export const FEE_COLLECTOR_ACCOUNT = '0.0.98';
const TREASURY_WEIBAR = 10n ** 9n * 10n ** 8n * WEIBAR_PER_TINYBAR;
/** 10^8 HBAR: the relay operator pays fees like any operator, and has plenty to pay them with. */
const RELAY_OPERATOR_WEIBAR = 10n ** 8n * 10n ** 8n * WEIBAR_PER_TINYBAR;
const FIRST_USER_NUM = 1001;
/** The ledger's per-transaction gas ceiling. */
export const MAX_GAS_PER_TRANSACTION = 15_000_000n;
/** The ledger's gas price, in tinybar per gas (what /network/fees reports; 710 gwei in weibar). */
const GAS_PRICE_TINYBAR = 71;

/** Fixed service fees in tinybar, charged to the payer; an Ethereum transaction's gas is charged to its sender. */
export const FEES_TINYBAR = {
  FILECREATE: 5_000_000n,
  FILEAPPEND: 5_000_000n,
  FILEDELETE: 700_000n,
  ETHEREUMTRANSACTION: 100_000n,
  CRYPTOCREATEACCOUNT: 5_000_000n,
  CRYPTOTRANSFER: 100_000n,
  TOKENCREATION: 100_000_000n,
  TOKENASSOCIATE: 5_000_000n,
  ...TOKEN_FEES_TINYBAR,
  // The fee schedule's base prices (ContractCreate $1, ContractCall $0.05, gas on top) at this table's rate of one
  // HBAR per US dollar (TokenCreate $1, TokenAssociate/CryptoCreate/FileCreate $0.05, FileDelete $0.007).
  CONTRACTCREATEINSTANCE: 100_000_000n,
  CONTRACTCALL: 5_000_000n,
} as const;

/**
 * What a token creation through 0x167 takes from the value sent with it, in tinybar: hiero-consensus-node
 * ClassicCreatesCall charges the HAPI TokenCreate price plus 20%, less the 100,000 gas it charges as gas.
 */
const HTS_CREATE_FEE_TINYBAR = FEES_TINYBAR.TOKENCREATION + FEES_TINYBAR.TOKENCREATION / 5n - 100_000n * BigInt(GAS_PRICE_TINYBAR);

export interface LedgerChainOptions {
  chainId: number;
  /** Record-file interval in ms; 0 closes a block as soon as a transaction arrives. Default 2000. */
  blockIntervalMs?: number;
  /** Where unexpected failures while closing a block are reported (the chain keeps running). */
  onError?: (err: unknown) => void;
  /** Whether the node takes jumbo EthereumTransactions (HIP-1086), as networks do by default now. Default true. */
  jumboTransactions?: boolean;
  /**
   * `contracts.maxRefundPercentOfGasLimit`: how much of an EVM transaction's unused gas limit goes back (gasCharging.ts).
   * Default 100, all of it, as on the network the official relay's suites expect; 20 makes the 80% floor.
   */
  maxRefundPercentOfGasLimit?: number;
}

/** What every submission carries, as the consensus node received it. */
export interface Submission {
  /** `0.0.<payer>-<seconds>-<nanos>` */
  transactionId: string;
  payer: string;
  /** 48-byte hash (SHA-384) of the signed transaction bytes, 0x hex. */
  hash: string;
  /** The payer's fee ceiling (the transaction body's `transactionFee`), if it set one. */
  maxFeeTinybar?: bigint;
  /**
   * The hollow accounts (the payer or another required signer) signed for by the ECDSA key their EVM address comes
   * from, by account id: handling the transaction makes that key the account's (HIP-583). Filled while the
   * signatures are checked, so it is complete once the submission is queued.
   */
  completesHollow?: ReadonlyMap<string, PublicKey>;
}

export interface EthereumSubmission extends Submission {
  ethereumData: Uint8Array;
  callDataFileId?: string;
  maxGasAllowanceTinybar: bigint;
}

type Work =
  | NativeWork
  | ContractWork
  | { name: 'FILECREATE'; contents: Uint8Array }
  | { name: 'FILEAPPEND'; fileId: string; contents: Uint8Array }
  | { name: 'FILEDELETE'; fileId: string }
  | { name: 'ETHEREUMTRANSACTION'; tx: Transaction; callDataFileId?: string; maxGasAllowanceTinybar: bigint };
type Pending = Submission & Work;

/** How one pending item ended before the block's EVM results are known. */
interface Handled {
  item: Pending;
  consensusNs: bigint;
  result: string;
  feeTinybar: bigint;
  transfers: Map<string, bigint>;
  fileId?: string;
  contractId?: string;
  /** The account or token a native transaction created or touched. */
  entityId?: string;
  tokenTransfers?: TokenMove[];
  /** What a token transaction adds to its record (NFT transfers, a mint's new supply and serials). */
  tokenRecord?: TokenOutcome['record'];
  /** The full signed transaction (call data from the file included) for Ethereum transactions. */
  eth?: Transaction;
  /** The hash the EVM knows an Ethereum transaction by: its own, but for one without a chain id (#sendToEvm). */
  ethEvmHash?: string;
  evmExecuted?: boolean;
  /** Preceding child records (auto-created accounts, hollow-account completions), in order. */
  children?: ChildRecord[];
  /** Following child records (tokens created through 0x167), in order. */
  following?: ChildRecord[];
  /** What an EVM execution asked of 0x167 and of system accounts (systemContractCalls.ts), read once it is mined. */
  systemCalls?: SystemContractCalls;
  /** A consensus-node contract call or creation sent into the EVM. */
  contractRun?: ContractRun;
  contractGasUsed?: bigint;
  /** An EVM execution's exceptional halt, by the consensus node's name for it. */
  haltReason?: string;
  /** The network's outcome of the top-level call where the EVM here decides otherwise (topLevelCall.ts). */
  preset?: PresetOutcome;
  /** An EthereumTransaction's gas taken before it ran (gasCharging.ts), and what the EVM was given to take its own. */
  gas?: { upfront: GasCharges; prepaidWeibar: bigint };
  /** The gas an executed EthereumTransaction was charged for. */
  gasUsed?: bigint;
}

export interface Receipt {
  /** UNKNOWN while the transaction waits for its block. */
  status: string;
  transaction?: LedgerTransaction;
}

export class LedgerChain extends EventEmitter implements LedgerView {
  readonly nodeAccountId = NODE_ACCOUNT;
  /** The fee-exempt treasury and its key, for tools that want a superuser operator (e.g. the local node's 0.0.2). */
  readonly superuser = { accountId: TREASURY_ACCOUNT, privateKey: PrivateKey.fromBytesED25519(Buffer.from(TREASURY_ED25519_KEY.slice(2), 'hex')) };
  /** The relay's operator: an ordinary account created at genesis, which pays fees as an operator does on a network. */
  #operator = { accountId: '', privateKey: PrivateKey.fromBytesED25519(Buffer.from(RELAY_OPERATOR_ED25519_KEY.slice(2), 'hex')) };
  readonly blockIntervalMs: number;
  readonly jumboTransactions: boolean;
  readonly maxRefundPercentOfGasLimit: number;

  readonly #clock = new ConsensusClock();
  readonly #files = new FileStore();
  readonly #tokens = new TokenService();
  readonly #system: SystemContracts;
  readonly #accounts: LedgerAccount[] = [];
  readonly #byId = new Map<string, LedgerAccount>();
  readonly #byAddress = new Map<string, LedgerAccount>();
  readonly #keys = new Map<string, PublicKey>();
  readonly #blocks: LedgerBlock[] = [];
  readonly #blockByHash = new Map<string, LedgerBlock>();
  readonly #transactions: LedgerTransaction[] = [];
  readonly #txById = new Map<string, LedgerTransaction>();
  readonly #txByEthHash = new Map<string, LedgerTransaction>();
  readonly #pending: Pending[] = [];
  readonly #pendingIds = new Set<string>();
  readonly #onError: (err: unknown) => void;
  #nextNum = FIRST_USER_NUM;
  readonly #book: AccountBook = {
    account: (idOrAddress) => this.account(idOrAddress),
    accounts: () => this.#accounts,
    register: (a) => this.#register(a),
  };
  #lock: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(
    readonly chainId: number,
    readonly evm: EvmNode,
    opts: LedgerChainOptions,
  ) {
    super();
    this.blockIntervalMs = opts.blockIntervalMs ?? 2_000;
    this.jumboTransactions = opts.jumboTransactions ?? true;
    this.maxRefundPercentOfGasLimit = opts.maxRefundPercentOfGasLimit ?? 100;
    this.#onError = opts.onError ?? ((err) => console.error('ledger sandbox:', err));
    this.#system = new SystemContracts(evm);
  }

  get operator(): { accountId: string; privateKey: PrivateKey } {
    return this.#operator;
  }

  static async create(opts: LedgerChainOptions): Promise<LedgerChain> {
    const own = sandboxAccounts();
    const localNode = localNodeAccounts();
    const evm = await EvmNode.start({
      chainId: opts.chainId,
      automine: false,
      accounts: [...own, ...localNode].map((a) => ({ privateKey: a.privateKey, balance: PREFUNDED_WEIBAR })),
      // A record file holds whatever arrived in its interval: room for a hundred transactions at the ledger's gas cap.
      blockGasLimit: 100n * MAX_GAS_PER_TRANSACTION,
      balances: [{ address: longZeroAddress(entityNum(TREASURY_ACCOUNT)!), balance: TREASURY_WEIBAR }],
    });
    const chain = new LedgerChain(opts.chainId, evm, opts);
    await chain.#system.install(HTS_CREATE_FEE_TINYBAR * WEIBAR_PER_TINYBAR);
    await chain.#genesis(own, localNode);
    return chain;
  }

  /** The local node's accounts are numbered last, so the sandbox's own accounts and the relay operator keep their ids. */
  async #genesis(own: SandboxAccount[], localNode: SandboxAccount[]): Promise<void> {
    const ns = this.#clock.next();
    const created = timestampString(ns);
    this.#register({ num: entityNum(TREASURY_ACCOUNT), key: this.superuser.privateKey.publicKey, created });
    this.#register({ num: entityNum(NODE_ACCOUNT), created });
    // The local node's system accounts share the genesis key, as the system admin does the treasury's here.
    this.#register({ num: entityNum(SYSTEM_ADMIN_ACCOUNT), key: this.superuser.privateKey.publicKey, created });
    this.#register({ num: entityNum(FEE_COLLECTOR_ACCOUNT), created });
    const registerPrefunded = (a: SandboxAccount) =>
      this.#register({ evmAddress: a.address, key: PrivateKey.fromStringECDSA(a.privateKey).publicKey, created });
    own.forEach(registerPrefunded);
    const relayOperator = this.#register({ key: this.#operator.privateKey.publicKey, created });
    await this.#setBalance(relayOperator.evmAddress, RELAY_OPERATOR_WEIBAR);
    this.#operator.accountId = relayOperator.id;
    localNode.forEach(registerPrefunded);
    const genesis = (await this.evm.request({ method: 'eth_getBlockByNumber', params: ['0x0', false] })) as EvmBlock;
    this.#recordBlock(genesis, ns, ns, []);
    if (this.blockIntervalMs > 0) {
      this.#timer = setInterval(() => void this.closeBlock(), this.blockIntervalMs);
      // The sandbox's servers keep the process alive, not the record-file clock.
      this.#timer.unref();
    }
  }

  // ----- read side (LedgerView) -----

  blocks(): readonly LedgerBlock[] {
    return this.#blocks;
  }
  blockByNumber(n: number): LedgerBlock | undefined {
    return this.#blocks[n];
  }
  blockByHash(hash: string): LedgerBlock | undefined {
    return this.#blockByHash.get(hash.toLowerCase().slice(0, 66));
  }
  transactions(): readonly LedgerTransaction[] {
    return this.#transactions;
  }
  transactionByEthHash(hash: string): LedgerTransaction | undefined {
    return this.#txByEthHash.get(hash.toLowerCase());
  }
  transactionById(transactionId: string): LedgerTransaction | undefined {
    return this.#txById.get(canonicalTransactionIdString(transactionId));
  }
  account(idOrAddress: string): LedgerAccount | undefined {
    if (idOrAddress.startsWith('0x')) return this.#byAddress.get(idOrAddress.toLowerCase());
    return this.#byId.get(idOrAddress);
  }
  accounts(): readonly LedgerAccount[] {
    return this.#accounts;
  }
  async balanceTinybar(account: LedgerAccount): Promise<bigint> {
    return (await this.#weibar(account.evmAddress)) / WEIBAR_PER_TINYBAR;
  }
  gasPriceTinybar(): number {
    return GAS_PRICE_TINYBAR;
  }
  tokens(): readonly LedgerToken[] {
    return this.#tokens.tokens();
  }
  tokenBalances(tokenId: string): ReadonlyMap<string, bigint> {
    return this.#tokens.balances(tokenId);
  }
  tokenState(): TokenState {
    return this.#tokens;
  }

  /**
   * A token's key of that role, if it has one (what a mint, KYC or freeze change must be signed with); null when no
   * signature satisfies it (a contract's key).
   */
  tokenKey(token: string, role: TokenKeyRole): PublicKey | null | undefined {
    const ref = this.#tokens.key(token, role);
    return ref && publicKeyOf(ref);
  }

  /** The key that must sign for an account, if it has one. */
  accountKey(id: string): PublicKey | undefined {
    return this.#keys.get(id);
  }

  fileContents(fileId: string): Buffer | undefined {
    return this.#files.get(fileId)?.contents;
  }

  fileDeleted(fileId: string): boolean {
    return this.#files.known(fileId) && !this.#files.get(fileId);
  }

  /** The receipt as the ledger would answer it; undefined when the transaction id was never submitted. */
  receipt(transactionId: string): Receipt | undefined {
    const tx = this.transactionById(transactionId);
    if (tx) return { status: tx.result, transaction: tx };
    return this.#pendingIds.has(transactionId) ? { status: 'UNKNOWN' } : undefined;
  }

  // ----- write side -----

  /**
   * Prechecks and queues an EthereumTransaction; returns the precheck status (OK when queued). The precheck is the
   * ingest's: hiero-consensus-node IngestChecker runs EthereumTransactionHandler.pureChecks, which refuses data that
   * does not decode (INVALID_ETHEREUM_TRANSACTION), value sent to the zero address (INVALID_SOLIDITY_ADDRESS) and a gas
   * limit under the intrinsic gas of the call data as sent (INSUFFICIENT_GAS; call data in a file is not read there).
   * The sender's nonce is not looked at before handling: TransactionProcessor.computeInvolvedParties compares it with
   * the sender's at handle time, in consensus order, and a mismatch is WRONG_NONCE in the record (#handleEthereum).
   */
  async submitEthereumTransaction(s: EthereumSubmission): Promise<string> {
    const tx = decodeSigned(s.ethereumData);
    if (!tx) return 'INVALID_ETHEREUM_TRANSACTION';
    if (tx.value > 0n && tx.to !== null && BigInt(tx.to) === 0n) return 'INVALID_SOLIDITY_ADDRESS';
    if (tx.gasLimit < intrinsicGas(Buffer.from(tx.data.slice(2), 'hex'), tx.to === null)) return 'INSUFFICIENT_GAS';
    if (tx.gasLimit > MAX_GAS_PER_TRANSACTION) return 'MAX_GAS_LIMIT_EXCEEDED';
    if (s.callDataFileId !== undefined && entityNum(s.callDataFileId) === undefined) return 'INVALID_FILE_ID';
    // The payer must be able to cover the gas it offers to pay on the sender's behalf, as well as the fee.
    const work = { name: 'ETHEREUMTRANSACTION' as const, tx, callDataFileId: s.callDataFileId, maxGasAllowanceTinybar: s.maxGasAllowanceTinybar };
    return this.#enqueue(s, work, FEES_TINYBAR.ETHEREUMTRANSACTION, s.maxGasAllowanceTinybar);
  }

  /** Prechecks and queues a transaction of the ledger's own services; a new account's initial balance is the payer's. */
  async submitNative(s: Submission, work: NativeWork): Promise<string> {
    const allowance = work.name === 'CRYPTOCREATEACCOUNT' ? work.initialBalanceTinybar : 0n;
    return this.#enqueue(s, work, FEES_TINYBAR[work.name], allowance);
  }

  /** Prechecks and queues a ContractCreate or ContractCall; the payer must cover the fee, the gas and the value sent. */
  async submitContract(s: Submission, work: ContractWork): Promise<string> {
    const value = work.name === 'CONTRACTCALL' ? work.amountTinybar : work.initialBalanceTinybar;
    return this.#enqueue(s, work, FEES_TINYBAR[work.name], work.gas * BigInt(GAS_PRICE_TINYBAR) + value);
  }

  async createFile(s: Submission & { contents: Uint8Array }): Promise<string> {
    return this.#enqueue(s, { name: 'FILECREATE', contents: s.contents }, FEES_TINYBAR.FILECREATE);
  }

  async appendFile(s: Submission & { fileId: string; contents: Uint8Array }): Promise<string> {
    if (entityNum(s.fileId) === undefined) return 'INVALID_FILE_ID';
    return this.#enqueue(s, { name: 'FILEAPPEND', fileId: s.fileId, contents: s.contents }, FEES_TINYBAR.FILEAPPEND);
  }

  async deleteFile(s: Submission & { fileId: string }): Promise<string> {
    if (entityNum(s.fileId) === undefined) return 'INVALID_FILE_ID';
    return this.#enqueue(s, { name: 'FILEDELETE', fileId: s.fileId }, FEES_TINYBAR.FILEDELETE);
  }

  async #enqueue(s: Submission, work: Work, feeTinybar: bigint, allowanceTinybar = 0n): Promise<string> {
    if (this.#closed) return 'PLATFORM_NOT_ACTIVE';
    const payer = this.#byId.get(s.payer);
    if (!payer || !(this.#keys.has(s.payer) || s.completesHollow?.has(s.payer))) return 'PAYER_ACCOUNT_NOT_FOUND';
    if (this.#pendingIds.has(s.transactionId) || this.#txById.has(s.transactionId)) return 'DUPLICATE_TRANSACTION';
    const fee = payerFee(s.payer, feeTinybar);
    if (s.maxFeeTinybar !== undefined && s.maxFeeTinybar < fee) return 'INSUFFICIENT_TX_FEE';
    if ((await this.balanceTinybar(payer)) < fee + allowanceTinybar) return 'INSUFFICIENT_PAYER_BALANCE';
    // The balance read awaited: another submission with the same id may have been queued meanwhile.
    if (this.#pendingIds.has(s.transactionId)) return 'DUPLICATE_TRANSACTION';
    this.#pending.push({ ...s, ...work });
    this.#pendingIds.add(s.transactionId);
    if (this.blockIntervalMs === 0) void this.closePending();
    return 'OK';
  }

  /** Closes the current record file now if anything waits for it (and waits for that), else does nothing. */
  closePending(): Promise<LedgerBlock | undefined> {
    return this.#run(() => (this.#pending.length > 0 ? this.#closeBlock() : undefined));
  }

  /** Closes the current record file now (also when empty) and returns its block. */
  closeBlock(): Promise<LedgerBlock | undefined> {
    return this.#run(() => this.#closeBlock());
  }

  /** Runs block closes one at a time; a failure is reported and the chain carries on. */
  #run<T>(fn: () => Promise<T> | T): Promise<T | undefined> {
    const next = this.#lock.then(async () => {
      if (this.#closed) return undefined;
      try {
        return await fn();
      } catch (err) {
        this.#onError(err);
        return undefined;
      }
    });
    this.#lock = next;
    return next;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#lock;
    this.#closed = true;
    await this.evm.close();
  }

  // ----- handling -----

  async #closeBlock(): Promise<LedgerBlock> {
    const batch = this.#pending.splice(0);
    const handled: Handled[] = [];
    for (const item of batch) {
      const h: Handled = { item, consensusNs: this.#clock.next(), result: 'SUCCESS', feeTinybar: 0n, transfers: new Map() };
      try {
        await this.#handle(h);
      } catch (err) {
        this.#onError(err);
        h.result = 'FAIL_INVALID';
      }
      handled.push(h);
    }
    await this.#system.sync(this.#tokens, this.#addresses);
    await this.#system.syncLedger(this.#nextNum, this.#accounts.flatMap((a) => this.#addresses.addressesOf(a.id)));
    await this.evm.request({ method: 'evm_mine' });
    // Tokens created through 0x167 took their numbers from the ledger's.
    this.#nextNum = Math.max(this.#nextNum, await this.#system.nextEntityNum());
    const block = (await this.evm.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as EvmBlock;
    const records: LedgerTransaction[] = [];
    for (const h of handled) {
      const evmHash = h.contractRun?.evmHash ?? (h.evmExecuted ? h.ethEvmHash : undefined);
      if (evmHash) h.systemCalls = await systemContractCalls(this.evm, evmHash, this.#addressBook, (a) => this.#system.isSystemAddress(a, this.#tokens));
      if (h.contractRun) await this.#settleContract(h);
      else if (h.evmExecuted) await this.#settleEvmResult(h);
      if (h.systemCalls) await this.#takeSystemCalls(h, h.systemCalls);
      for (const child of h.children ?? []) records.push({ ...child, blockNumber: Number(block.number), index: records.length });
      records.push(this.#toRecord(h, Number(block.number), records.length));
      for (const child of h.following ?? []) records.push({ ...child, blockNumber: Number(block.number), index: records.length });
      this.#pendingIds.delete(h.item.transactionId);
    }
    await this.#system.absorb(block.number, timestampString(this.#clock.last), this.#tokens, this.#addresses);
    // A token created through 0x167 answers as a token as soon as its transaction is final, as on the network.
    if (handled.some((h) => h.following?.length)) await this.#system.sync(this.#tokens, this.#addresses);
    // A record file runs from its first transaction's consensus timestamp to its last's, as the mirror node's importer
    // reads it (RecordFileReaderImplV5 and the block-file reader: consensusStart and consensusEnd are the first and
    // last items'); a block without any starts and ends at one instant (the block-file reader's last meta timestamp).
    // A tick of its own before the first transaction put a single transaction's block in the second before it at times,
    // so its logs' blockTimestamp (the block's) differed from the mirror block's end, which the official suites compare.
    const times = records.map((r) => timestampNanos(r.consensusTimestamp));
    const empty = times.length === 0 ? this.#clock.next() : 0n;
    const fromNs = times.reduce((a, b) => (b < a ? b : a), times[0] ?? empty);
    const toNs = times.reduce((a, b) => (b > a ? b : a), times[0] ?? empty);
    return this.#recordBlock(block, fromNs, toNs, records);
  }

  async #handle(h: Handled): Promise<void> {
    const item = h.item;
    const fee = payerFee(item.payer, item.name === 'ETHEREUMTRANSACTION' ? FEES_TINYBAR.ETHEREUMTRANSACTION : FEES_TINYBAR[item.name]);
    const payer = this.#byId.get(item.payer)!;
    if ((await this.balanceTinybar(payer)) < fee) {
      h.result = 'INSUFFICIENT_PAYER_BALANCE';
      return;
    }
    await this.#charge(h, item.payer, fee);
    // Two transactions signed for one hollow account may share a block: the first completes it.
    for (const [id, key] of item.completesHollow ?? []) if (!this.#keys.has(id)) this.#completeHollow(h, this.#byId.get(id)!, key);
    switch (item.name) {
      case 'FILECREATE': {
        h.fileId = entityId(this.#nextNum++);
        this.#files.create(h.fileId, item.contents);
        return;
      }
      case 'FILEAPPEND':
      case 'FILEDELETE': {
        h.fileId = item.fileId;
        if (!this.#files.get(item.fileId)) h.result = this.#files.known(item.fileId) ? 'FILE_DELETED' : 'INVALID_FILE_ID';
        else if (item.name === 'FILEAPPEND') this.#files.append(item.fileId, item.contents);
        else this.#files.delete(item.fileId);
        return;
      }
      case 'ETHEREUMTRANSACTION':
        return this.#handleEthereum(h, item);
      case 'CONTRACTCREATEINSTANCE':
      case 'CONTRACTCALL':
        return this.#startContract(h, item, payer);
      case 'CRYPTOCREATEACCOUNT': {
        if ((await this.balanceTinybar(payer)) < item.initialBalanceTinybar) {
          h.result = 'INSUFFICIENT_PAYER_BALANCE';
          return;
        }
        if (item.alias && this.account(item.alias)) {
          h.result = 'ALIAS_ALREADY_ASSIGNED';
          return;
        }
        const aliased = item.alias ? { evmAddress: item.alias, alias: item.alias } : {};
        const account = this.#register({ key: item.key, created: timestampString(h.consensusNs), ...aliased });
        await this.#move(h, item.payer, account.id, item.initialBalanceTinybar);
        h.entityId = account.id;
        return;
      }
      case 'CRYPTOTRANSFER':
        return this.#handleTransfer(h, item);
      case 'TOKENCREATION':
        return this.#tokenOutcome(h, this.#tokens.create(item.token, () => entityId(this.#nextNum++), timestampString(h.consensusNs), this.#exists));
      case 'TOKENASSOCIATE':
        h.entityId = item.account;
        h.result = this.#byId.has(item.account) ? this.#tokens.associate(item.account, item.tokens, timestampString(h.consensusNs)) : 'INVALID_ACCOUNT_ID';
        return;
      default:
        return this.#tokenOutcome(h, this.#tokens.handle(item, item.payer, timestampString(h.consensusNs), this.#exists));
    }
  }

  readonly #exists = (id: string) => this.#byId.has(id);

  readonly #addressBook: AddressBook = {
    accountOf: (address) => {
      const account = this.account(address.toLowerCase());
      const key = account && this.#keys.get(account.id);
      return account && { id: account.id, isContract: account.isContract, ...(key ? { key: keyRef(key) } : {}) };
    },
  };

  /**
   * Applies what an executed transaction asked of 0x167 and system accounts. Sending value to a system account halts
   * it: its settlement already counted the whole gas limit and the status (#haltedBySystemAccount), and every value
   * move it made is undone here; its other EVM state stays, which the sandbox cannot undo (a known difference).
   * Otherwise each token it created joins the ledger as a following child record, and the value sent with a creation
   * goes back to its caller less the fee, which goes to the fee collector (ClassicCreatesCall collects only the fee).
   */
  async #takeSystemCalls(h: Handled, calls: SystemContractCalls): Promise<void> {
    if (calls.valueToSystemAccount) {
      // Last move first: a contract may have passed on what it was just sent.
      for (const move of [...calls.valueMoves].reverse()) {
        await this.#addWeibar(move.to, -move.valueWeibar);
        await this.#addWeibar(move.from, move.valueWeibar);
      }
      return;
    }
    const feeWeibar = HTS_CREATE_FEE_TINYBAR * WEIBAR_PER_TINYBAR;
    for (const payment of calls.creationPayments) {
      const fee = payment.charged ? feeWeibar : 0n;
      await this.#addWeibar(HTS_ADDRESS, -payment.valueWeibar);
      await this.#addWeibar(payment.from, payment.valueWeibar - fee);
      if (fee === 0n) continue;
      await this.#addWeibar(this.#byId.get(FEE_COLLECTOR_ACCOUNT)!.evmAddress, fee);
      add(h.transfers, this.account(payment.from)!.id, -HTS_CREATE_FEE_TINYBAR);
      add(h.transfers, FEE_COLLECTOR_ACCOUNT, HTS_CREATE_FEE_TINYBAR);
    }
    for (const creation of calls.creations) {
      const timestamp = timestampString(this.#clock.next());
      const outcome = this.#tokens.create(creation.spec, () => creation.tokenId, timestamp, this.#exists);
      if (outcome.result !== 'SUCCESS') {
        this.#onError(new Error(`0x167 created ${creation.tokenId}, which the ledger refused: ${outcome.result}`));
        continue;
      }
      const nonce = (h.children?.length ?? 0) + (h.following?.length ?? 0) + 1;
      (h.following ??= []).push({
        consensusTimestamp: timestamp,
        transactionId: canonicalTransactionIdString(h.item.transactionId),
        payerAccountId: h.item.payer,
        name: 'TOKENCREATION',
        result: 'SUCCESS',
        chargedTxFeeTinybar: 0,
        transfers: [],
        entityId: creation.tokenId,
        tokenTransfers: (outcome.tokenTransfers ?? []).map((t) => ({ token: t.token, account: t.account, amount: Number(t.amount) })),
        nonce,
        hash: childHash(h.item.hash, nonce),
      });
    }
  }

  readonly #addresses: AccountAddresses = {
    addressesOf: (id) => {
      const account = this.#byId.get(id)!;
      return [...new Set([account.evmAddress, longZeroAddress(account.num)])];
    },
    accountOf: (address) => this.account(address)?.id,
  };

  #tokenOutcome(h: Handled, outcome: TokenOutcome): void {
    h.result = outcome.result;
    if (outcome.entityId) h.entityId = outcome.entityId;
    if (outcome.tokenTransfers) h.tokenTransfers = outcome.tokenTransfers;
    if (outcome.record) h.tokenRecord = outcome.record;
  }

  /** Hbar and token moves of one CryptoTransfer: every check first, then all of it or nothing. */
  async #handleTransfer(h: Handled, item: Pending & { name: 'CRYPTOTRANSFER' }): Promise<void> {
    if (!(await this.#createAliased(h, item))) return;
    const net = new Map<string, bigint>();
    for (const m of item.hbar) add(net, m.account, m.amount);
    if ([...net.values()].reduce((a, b) => a + b, 0n) !== 0n) {
      h.result = 'INVALID_ACCOUNT_AMOUNTS';
      return;
    }
    for (const [account, amount] of net) {
      const known = this.#byId.get(account);
      if (!known) {
        h.result = 'INVALID_ACCOUNT_ID';
        return;
      }
      if (amount < 0n && (await this.balanceTinybar(known)) + amount < 0n) {
        h.result = 'INSUFFICIENT_ACCOUNT_BALANCE';
        return;
      }
    }
    this.#tokenOutcome(h, this.#tokens.transfer(item, item.payer, timestampString(h.consensusNs)));
    if (h.result !== 'SUCCESS') return;
    for (const [account, amount] of net) {
      if (amount === 0n) continue;
      const address = this.#byId.get(account)!.evmAddress;
      await this.#setBalance(address, (await this.#weibar(address)) + amount * WEIBAR_PER_TINYBAR);
      add(h.transfers, account, amount);
    }
  }

  async #handleEthereum(h: Handled, item: Pending & { name: 'ETHEREUMTRANSACTION' }): Promise<void> {
    let tx: Transaction | undefined = item.tx;
    if (item.callDataFileId !== undefined && tx.data === '0x') {
      const file = this.#files.get(item.callDataFileId);
      if (!file) {
        h.result = this.#files.known(item.callDataFileId) ? 'FILE_DELETED' : 'INVALID_FILE_ID';
        return;
      }
      tx = withCallData(tx, file.contents);
      if (!tx) {
        h.result = 'INVALID_ETHEREUM_TRANSACTION';
        return;
      }
    }
    if ((tx.data.length - 2) / 2 > JUMBO_MAX_CALL_DATA_BYTES) {
      h.result = 'TRANSACTION_OVERSIZE';
      return;
    }
    h.eth = tx;
    const from = tx.from!.toLowerCase();
    const known = this.account(from);
    this.#seen(from);
    // The sender's first EthereumTransaction completes a hollow account with the key that signed it (HIP-583).
    if (known && isHollow(known, this.#keys.get(known.id))) this.#completeHollow(h, known, PublicKey.fromStringECDSA(SigningKey.computePublicKey(tx.fromPublicKey!, true)));
    // A long-zero address names an id: the ledger never gives it to an account of another number (#unknownLongZero).
    if (tx.to && !this.#system.isSystemAddress(tx.to, this.#tokens) && !this.#unknownLongZero(tx.to)) this.#seen(tx.to.toLowerCase());
    if (tx.chainId !== 0n && tx.chainId !== BigInt(this.chainId)) {
      h.result = 'WRONG_CHAIN_ID';
      return;
    }
    // The nonce is checked here, at handle time in consensus order, not at ingest (hiero-consensus-node
    // TransactionProcessor.computeInvolvedParties: WRONG_NONCE unless it equals the sender's): transactions with
    // consecutive nonces succeed in the order they reach consensus, and one that arrives before its predecessor fails.
    const nonce = BigInt((await this.evm.request({ method: 'eth_getTransactionCount', params: [from, 'pending'] })) as string);
    if (BigInt(tx.nonce) !== nonce) {
      h.result = 'WRONG_NONCE';
      return;
    }
    // Gas is charged at the network's price, split between sender and relayer (gasCharging.ts), checked in the
    // consensus node's order: the relayer's allowance, its balance, then the sender's balance.
    const upfront = upfrontGasCharges(tx.gasLimit, offeredGasPriceTinybar(tx), BigInt(GAS_PRICE_TINYBAR));
    if (item.maxGasAllowanceTinybar < upfront.relayer) {
      h.result = 'INSUFFICIENT_TX_FEE';
      return;
    }
    if ((await this.balanceTinybar(this.#byId.get(item.payer)!)) < upfront.relayer) {
      h.result = 'INSUFFICIENT_PAYER_BALANCE';
      return;
    }
    const balance = BigInt((await this.evm.request({ method: 'eth_getBalance', params: [from, 'pending'] })) as string);
    if (balance < upfront.sender * WEIBAR_PER_TINYBAR + tx.value) {
      h.result = 'INSUFFICIENT_PAYER_BALANCE';
      return;
    }
    // The EVM takes gasLimit × the signed price up front and wants the balance for it: the sender is given that and
    // charged the network's share instead, so the execution sees the balance the network would leave it (exactly for
    // legacy prices; an EIP-1559 one also leaves it gasLimit × (maxFeePerGas - effective price)). Settling undoes the
    // EVM's own charge.
    const prepaidWeibar = tx.gasLimit * (tx.maxFeePerGas ?? tx.gasPrice ?? 0n);
    h.gas = { upfront, prepaidWeibar };
    await this.#addWeibar(from, prepaidWeibar - upfront.sender * WEIBAR_PER_TINYBAR);
    await this.#addWeibar(this.#byId.get(item.payer)!.evmAddress, -upfront.relayer * WEIBAR_PER_TINYBAR);
    if (tx.to) {
      const isSystem = this.#system.isSystemAddress(tx.to, this.#tokens);
      h.preset = systemAccountNoop(tx.to, tx.value, tx.gasLimit, isSystem) ?? longZeroCreationHalt(tx.to, tx.value, tx.gasLimit, isSystem || !this.#unknownLongZero(tx.to));
    }
    try {
      // A call the network halts before its code runs moves no value: the EVM runs it without any.
      h.ethEvmHash = await this.#sendToEvm(tx, h.preset !== undefined && h.preset.result !== 'SUCCESS');
      h.evmExecuted = true;
    } catch (err) {
      await this.#undoUpfrontGas(h);
      h.result = err instanceof EvmRpcError ? statusForEvmRefusal(err.message) : 'FAIL_INVALID';
    }
  }

  /**
   * Sends a signed Ethereum transaction into the EVM's pool; returns the hash the EVM knows it by. The network takes
   * transactions without a chain id (pre-EIP-155, which the official debug suite sends), while EDR refuses them raw:
   * those run as the sender's own unsigned transaction with the same fields, under a hash of the EVM's.
   */
  async #sendToEvm(tx: Transaction, withoutValue = false): Promise<string> {
    if (tx.chainId !== 0n && !withoutValue) return (await this.evm.request({ method: 'eth_sendRawTransaction', params: [tx.serialized] })) as string;
    const hex = (n: bigint) => `0x${n.toString(16)}`;
    await this.evm.request({ method: 'hardhat_impersonateAccount', params: [tx.from] });
    // The price the signed transaction would have had the EVM take up front (prepaidWeibar in #handleEthereum).
    const gasPrice = tx.gasPrice ?? tx.maxFeePerGas ?? 0n;
    const fields = { from: tx.from, to: tx.to, nonce: hex(BigInt(tx.nonce)), gas: hex(tx.gasLimit), gasPrice: hex(gasPrice), value: hex(withoutValue ? 0n : tx.value), data: tx.data };
    return (await this.evm.request({ method: 'eth_sendTransaction', params: [fields] })) as string;
  }

  /** Gives back the up-front gas of an EthereumTransaction the EVM did not run. */
  async #undoUpfrontGas(h: Handled): Promise<void> {
    const { upfront, prepaidWeibar } = h.gas!;
    await this.#addWeibar(h.eth!.from!, upfront.sender * WEIBAR_PER_TINYBAR - prepaidWeibar);
    await this.#addWeibar(this.#byId.get(h.item.payer)!.evmAddress, upfront.relayer * WEIBAR_PER_TINYBAR);
    delete h.gas;
  }

  /** Creates the accounts of the unused aliases a transfer credits (aliases.ts); false when that fails the transfer. */
  async #createAliased(h: Handled, item: Pending & { name: 'CRYPTOTRANSFER' }): Promise<boolean> {
    const aliased = BigInt(item.hbar.filter((m) => isAliasRef(m.account)).length);
    if (aliased === 0n) return true;
    // Each creation's fee is charged to the transfer's payer, in the transfer's own record.
    if ((await this.balanceTinybar(this.#byId.get(item.payer)!)) < payerFee(item.payer, aliased * FEES_TINYBAR.CRYPTOCREATEACCOUNT)) {
      h.result = 'INSUFFICIENT_PAYER_BALANCE';
      return false;
    }
    const children = resolveAliases(this.#book, item.hbar, item, timestampString(h.consensusNs));
    if (typeof children === 'string') {
      h.result = children;
      return false;
    }
    if (children.length > 0) await this.#charge(h, item.payer, BigInt(children.length) * FEES_TINYBAR.CRYPTOCREATEACCOUNT);
    this.#precede(h, children);
    return true;
  }

  /** Gives a hollow account the key that signed for it; a preceding child records it even if the parent fails. */
  #completeHollow(h: Handled, account: LedgerAccount, key: PublicKey): void {
    this.#keys.set(account.id, key);
    account.publicKey = `0x${key.toStringRaw()}`;
    this.#precede(h, [hollowCompletion(h.item, account.id)]);
  }

  /** Places preceding children before their parent: each takes the next nonce and a consensus time before it. */
  #precede(h: Handled, children: ChildRecord[]): void {
    for (const child of children) {
      const list = (h.children ??= []);
      child.nonce = list.length + 1;
      child.hash = childHash(h.item.hash, child.nonce);
      child.consensusTimestamp = timestampString(h.consensusNs);
      list.push(child);
      h.consensusNs = this.#clock.next();
    }
  }

  /** Sends a consensus-node contract creation or call into the EVM (contracts.ts), from the payer's EVM address. */
  async #startContract(h: Handled, item: Pending & ContractWork, payer: LedgerAccount): Promise<void> {
    const gasPriceWeibar = BigInt(GAS_PRICE_TINYBAR) * WEIBAR_PER_TINYBAR;
    let to: string;
    let initcode: Buffer | undefined;
    let data: Uint8Array = new Uint8Array();
    if (item.name === 'CONTRACTCREATEINSTANCE') {
      const code = initcodeOf(item, item.fileId ? this.#files.get(item.fileId)?.contents : undefined);
      if (typeof code === 'string') {
        h.result = item.fileId && code === 'INVALID_FILE_ID' && this.#files.known(item.fileId) ? 'FILE_DELETED' : code;
        return;
      }
      initcode = code;
      // The new contract's number is taken now; its account exists once the creation succeeds.
      to = longZeroAddress(this.#nextNum++);
    } else {
      // The target need not be a contract, nor exist (TransactionProcessor.computeInvolvedParties and FrameBuilder with
      // contracts.evm.allowCallsToNonContractAccounts, on by default): a call to an account without code succeeds with
      // an empty result, at the account's EVM address (HevmTransactionFactory.fromHapiCall's asPriorityId) or else at
      // the id's long-zero address.
      const target = this.#byId.get(item.contractId);
      if (target) await this.#markIfContract(target.evmAddress);
      to = target?.evmAddress ?? longZeroAddress(entityNum(item.contractId)!);
      data = item.functionParameters;
      const valueWeibar = item.amountTinybar * WEIBAR_PER_TINYBAR;
      const isSystem = this.#system.isSystemAddress(to, this.#tokens);
      h.preset = systemAccountNoop(to, valueWeibar, item.gas, isSystem) ?? longZeroCreationHalt(to, valueWeibar, item.gas, target !== undefined || isSystem);
    }
    // A call the network halts before its code runs moves no value: the EVM runs it without any.
    const value = h.preset && h.preset.result !== 'SUCCESS' ? 0n : item.name === 'CONTRACTCALL' ? item.amountTinybar : item.initialBalanceTinybar;
    const run = await startContractRun(this.evm, { from: payer.evmAddress, to, gas: item.gas, valueWeibar: value * WEIBAR_PER_TINYBAR, gasPriceWeibar, data, initcode });
    if (typeof run === 'string') h.result = run;
    else h.contractRun = run;
  }

  /** Reads the mined contract execution: status, gas (charged at the network's gas price), value moved, contract. */
  async #settleContract(h: Handled): Promise<void> {
    const item = h.item as Pending & ContractWork;
    const run = h.contractRun!;
    const settled = await settleContractRun(this.evm, run, item.gas);
    const halted = this.#haltedBySystemAccount(h);
    const outcome = { ...settled, ...(halted ?? h.preset) };
    if (!halted && !h.preset) outcome.gasUsed = min(item.gas, outcome.gasUsed + (h.systemCalls?.systemAccountGas ?? 0n));
    // A halted creation leaves no contract.
    if (halted && run.creation) await this.evm.request({ method: 'hardhat_setCode', params: [run.creation.address, '0x'] });
    h.result = outcome.result;
    h.haltReason = outcome.haltReason;
    // As for any EVM execution, the network may keep part of the unused limit (gasCharging.ts).
    h.contractGasUsed = chargedGas(item.gas, outcome.gasUsed, this.maxRefundPercentOfGasLimit);
    const payer = this.#byId.get(item.payer)!;
    // The EVM took the gas it counted; what the network counts beyond that (a creation's own costs, the floor) is taken here.
    const extra = (h.contractGasUsed - outcome.evmGasUsed) * BigInt(GAS_PRICE_TINYBAR);
    if (extra > 0n) await this.#addWeibar(payer.evmAddress, -extra * WEIBAR_PER_TINYBAR);
    const gasFee = h.contractGasUsed * BigInt(GAS_PRICE_TINYBAR);
    h.feeTinybar += gasFee;
    add(h.transfers, item.payer, -gasFee);
    add(h.transfers, FEE_COLLECTOR_ACCOUNT, gasFee);
    if (run.creation && h.result === 'SUCCESS') {
      h.contractId = this.#register({ num: Number(BigInt(run.creation.address)), created: timestampString(h.consensusNs), isContract: true }).id;
    } else if (item.name === 'CONTRACTCALL') {
      h.contractId = item.contractId;
    }
    const value = item.name === 'CONTRACTCALL' ? item.amountTinybar : item.initialBalanceTinybar;
    if (h.result === 'SUCCESS' && value > 0n) {
      add(h.transfers, item.payer, -value);
      add(h.transfers, h.contractId!, value);
    }
  }

  /** Reads the executed transaction's receipt: final status, gas fee, created contract, value moved. */
  async #settleEvmResult(h: Handled): Promise<void> {
    const tx = h.eth!;
    const receipt = (await this.evm.request({ method: 'eth_getTransactionReceipt', params: [h.ethEvmHash] })) as EvmReceipt | null;
    if (!receipt) {
      // Not mined (the EVM kept it back): drop it so it cannot execute later under another record.
      await this.evm.request({ method: 'hardhat_dropTransaction', params: [h.ethEvmHash] }).catch(() => undefined);
      await this.#undoUpfrontGas(h);
      h.evmExecuted = false;
      h.result = 'FAIL_INVALID';
      return;
    }
    // The EVM charged gasUsed × its effective price, in weibar; the network charges whole tinybars at its own price,
    // on the gas used (or its floor), and refunds the rest relayer first (gasCharging.ts). Undo the one, apply the other.
    const { upfront, prepaidWeibar } = h.gas!;
    const gasLimit = tx.gasLimit;
    const halted = this.#haltedBySystemAccount(h) ?? (h.preset?.result === 'SUCCESS' ? undefined : h.preset);
    const evmGasUsed = min(gasLimit, BigInt(receipt.gasUsed) + (h.systemCalls?.systemAccountGas ?? 0n));
    h.gasUsed = halted?.gasUsed ?? h.preset?.gasUsed ?? chargedGas(gasLimit, evmGasUsed, this.maxRefundPercentOfGasLimit);
    const settled = settledGasCharges(upfront, gasLimit, h.gasUsed, BigInt(GAS_PRICE_TINYBAR));
    const evmCharge = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    await this.#addWeibar(tx.from!, evmCharge - prepaidWeibar + (upfront.sender - settled.sender) * WEIBAR_PER_TINYBAR);
    await this.#addWeibar(this.#byId.get(h.item.payer)!.evmAddress, (upfront.relayer - settled.relayer) * WEIBAR_PER_TINYBAR);
    const gasFee = settled.sender + settled.relayer;
    await this.#addWeibar(this.#byId.get(FEE_COLLECTOR_ACCOUNT)!.evmAddress, gasFee * WEIBAR_PER_TINYBAR);
    h.feeTinybar += gasFee;
    const from = this.account(tx.from!)!.id;
    add(h.transfers, from, -settled.sender);
    add(h.transfers, h.item.payer, -settled.relayer);
    add(h.transfers, FEE_COLLECTOR_ACCOUNT, gasFee);
    if (halted) {
      h.result = halted.result;
      h.haltReason = halted.haltReason;
    } else if (receipt.status === '0x1') {
      h.result = 'SUCCESS';
      const value = tx.value / WEIBAR_PER_TINYBAR;
      // Value sent with a token creation to 0x167 is no transfer: the creation charges its fee (#takeSystemCalls).
      if (value > 0n && tx.to && !this.#system.isSystemAddress(tx.to, this.#tokens)) {
        add(h.transfers, from, -value);
        add(h.transfers, this.account(tx.to)!.id, value);
      }
    } else {
      const failure = failedExecution((await topFrame(this.evm, h.ethEvmHash!))?.error);
      h.result = failure.status;
      h.haltReason = failure.haltReason;
    }
    if (receipt.contractAddress) h.contractId = this.#seen(receipt.contractAddress, true).id;
    else if (tx.to && (await this.#markIfContract(tx.to))) h.contractId = this.account(tx.to)!.id;
    else if (tx.to) h.contractId = this.#system.tokenAt(tx.to, this.#tokens)?.id ?? (this.#unknownLongZero(tx.to) ? entityId(longZeroNum(tx.to)!) : undefined);
  }

  /**
   * The outcome of an execution that sent value to a system account, which the EVM ran as any transfer: the network
   * halts it with INVALID_CONTRACT_ID (CustomMessageCallProcessor, FrameRunner) and, as for any halt, keeps the whole
   * gas limit. Undefined for any other execution.
   */
  #haltedBySystemAccount(h: Handled): Pick<ContractOutcome, 'result' | 'haltReason' | 'gasUsed'> | undefined {
    if (!h.systemCalls?.valueToSystemAccount) return undefined;
    const gasUsed = h.eth?.gasLimit ?? (h.item as Pending & ContractWork).gas;
    return { result: 'INVALID_CONTRACT_ID', haltReason: 'INVALID_CONTRACT_ID', gasUsed };
  }

  #toRecord(h: Handled, blockNumber: number, index: number): LedgerTransaction {
    const item = h.item;
    const record: LedgerTransaction = {
      consensusTimestamp: timestampString(h.consensusNs),
      transactionId: canonicalTransactionIdString(item.transactionId),
      payerAccountId: item.payer,
      name: item.name,
      result: h.result,
      chargedTxFeeTinybar: Number(h.feeTinybar),
      blockNumber,
      index,
      transfers: netTransferList(h.transfers),
      hash: item.hash,
    };
    if (h.fileId) record.fileId = h.fileId;
    if (h.haltReason) record.haltReason = h.haltReason;
    if (h.entityId) record.entityId = h.entityId;
    if (h.tokenTransfers) {
      record.tokenTransfers = h.tokenTransfers.map((t) => ({ token: t.token, account: t.account, amount: Number(t.amount), ...(t.isApproval ? { isApproval: true } : {}) }));
    }
    Object.assign(record, h.tokenRecord);
    if (item.name === 'ETHEREUMTRANSACTION') {
      const tx = h.eth ?? item.tx;
      record.ethHash = tx.hash!;
      if (h.ethEvmHash && h.ethEvmHash !== tx.hash) Object.assign(record, { evmHash: h.ethEvmHash, signedEthereum: tx.serialized });
      record.evmExecuted = h.evmExecuted === true;
      if (h.gasUsed !== undefined) record.gasUsed = Number(h.gasUsed);
      if (!record.evmExecuted) record.signedCall = { callData: tx.data, gasLimit: Number(tx.gasLimit) };
      if (h.contractId) record.contractId = h.contractId;
    }
    if (h.contractRun && (item.name === 'CONTRACTCALL' || item.name === 'CONTRACTCREATEINSTANCE')) {
      // The mirror node files a consensus-node contract call's result under the first 32 bytes of its hash.
      record.ethHash = item.hash.slice(0, 66);
      record.evmHash = h.contractRun.evmHash;
      record.evmExecuted = true;
      if (h.contractId) record.contractId = h.contractId;
      const parameters = item.name === 'CONTRACTCALL' ? item.functionParameters : item.constructorParameters;
      record.contractCall = {
        functionParameters: `0x${Buffer.from(parameters).toString('hex')}`,
        gasLimit: Number(item.gas),
        amountTinybar: Number(item.name === 'CONTRACTCALL' ? item.amountTinybar : item.initialBalanceTinybar),
        gasUsed: Number(h.contractGasUsed ?? 0n),
        ...(h.contractRun.creation ? { initcode: `0x${h.contractRun.creation.initcode.toString('hex')}` } : {}),
      };
    }
    return record;
  }

  #recordBlock(evmBlock: EvmBlock, fromNs: bigint, toNs: bigint, records: LedgerTransaction[]): LedgerBlock {
    const evmHash = evmBlock.hash.toLowerCase();
    const previous = this.#blocks.at(-1);
    const block: LedgerBlock = {
      number: Number(evmBlock.number),
      hash: ledgerBlockHash(evmHash),
      previousHash: previous?.hash ?? `0x${'0'.repeat(96)}`,
      timestampFrom: timestampString(fromNs),
      timestampTo: timestampString(toNs),
      count: records.length,
      // The gas the block's contract results were charged for, as the importer sums the record file's
      // (RecordFileParser.RecordItemAggregator): the network's figures, not the EVM's.
      gasUsed: records.reduce((sum, r) => sum + (r.contractCall?.gasUsed ?? r.gasUsed ?? 0), 0),
      logsBloom: evmBlock.logsBloom,
      name: recordFileName(fromNs),
      // Roughly what a record file of this many transactions weighs.
      size: 256 + records.length * 512,
    };
    this.#blocks.push(block);
    this.#blockByHash.set(evmHash, block);
    for (const r of records) {
      this.#transactions.push(r);
      // A transaction id names the user transaction, not the child records that share it.
      if (r.nonce === undefined) this.#txById.set(r.transactionId, r);
      if (r.ethHash) this.#txByEthHash.set(r.ethHash, r);
      this.emit('transaction', r);
    }
    this.emit('block', block);
    return block;
  }

  // ----- accounts and balances -----

  #register(a: { num?: number; evmAddress?: string; key?: PublicKey; created: string; isContract?: boolean; alias?: string }): LedgerAccount {
    const num = a.num ?? this.#nextNum++;
    const account: LedgerAccount = {
      id: entityId(num),
      num,
      evmAddress: (a.evmAddress ?? longZeroAddress(num)).toLowerCase(),
      isContract: a.isContract ?? false,
      createdTimestamp: a.created,
      ...(a.alias ? { alias: a.alias } : {}),
    };
    if (a.key) {
      const raw = `0x${a.key.toStringRaw()}`;
      if (a.key.type === 'ED25519') account.ed25519PublicKey = raw;
      else account.publicKey = raw;
      this.#keys.set(account.id, a.key);
    }
    this.#accounts.push(account);
    this.#byId.set(account.id, account);
    this.#byAddress.set(account.evmAddress, account);
    this.#byAddress.set(longZeroAddress(num), account);
    return account;
  }

  /**
   * A long-zero address past the system accounts that no account has: the network makes no account there, neither by
   * a call without value nor by lazy creation, which it refuses for long-zero addresses (topLevelCall.ts), and files
   * a call there under the number it names (hiero-consensus-node `FrameRunner.computeRecipientMetadata`).
   */
  #unknownLongZero(address: string): boolean {
    const num = longZeroNum(address);
    return num !== undefined && BigInt(num) > LAST_SYSTEM_ACCOUNT && this.account(address) === undefined;
  }

  /** An EVM address the ledger meets for the first time gets an account id (a contract's, when it has code). */
  #seen(address: string, isContract = false): LedgerAccount {
    const known = this.account(address);
    if (known) {
      if (isContract) known.isContract = true;
      return known;
    }
    return this.#register({ evmAddress: address, created: timestampString(this.#clock.last), isContract });
  }

  /** Whether the address holds code, remembering it on its account. */
  async #markIfContract(address: string): Promise<boolean> {
    const account = this.account(address);
    if (!account) return false;
    if (!account.isContract) {
      const code = (await this.evm.request({ method: 'eth_getCode', params: [address, 'latest'] })) as string;
      account.isContract = code !== '0x';
    }
    return account.isContract;
  }

  async #weibar(address: string): Promise<bigint> {
    return BigInt((await this.evm.request({ method: 'eth_getBalance', params: [address, 'latest'] })) as string);
  }

  /** Moves a service fee from the payer to the fee collector; a superuser pays none (superusers.ts). */
  async #charge(h: Handled, payerId: string, tinybar: bigint): Promise<void> {
    const fee = payerFee(payerId, tinybar);
    if (fee === 0n) return;
    await this.#move(h, payerId, FEE_COLLECTOR_ACCOUNT, fee);
    h.feeTinybar += fee;
  }

  /** Moves hbar between two accounts and records it; balances live in the EVM, in weibar. */
  async #move(h: Handled, fromId: string, toId: string, tinybar: bigint): Promise<void> {
    const from = this.#byId.get(fromId)!;
    const to = this.#byId.get(toId)!;
    const weibar = tinybar * WEIBAR_PER_TINYBAR;
    await this.#setBalance(from.evmAddress, (await this.#weibar(from.evmAddress)) - weibar);
    await this.#setBalance(to.evmAddress, (await this.#weibar(to.evmAddress)) + weibar);
    add(h.transfers, fromId, -tinybar);
    add(h.transfers, toId, tinybar);
  }

  async #addWeibar(address: string, delta: bigint): Promise<void> {
    if (delta !== 0n) await this.#setBalance(address, (await this.#weibar(address)) + delta);
  }

  async #setBalance(address: string, weibar: bigint): Promise<void> {
    await this.evm.request({ method: 'hardhat_setBalance', params: [address, `0x${weibar.toString(16)}`] });
  }
}

interface EvmBlock {
  number: string;
  hash: string;
  logsBloom: string;
}

interface EvmReceipt {
  status: string;
  gasUsed: string;
  effectiveGasPrice: string;
  contractAddress: string | null;
}

function add(transfers: Map<string, bigint>, account: string, amount: bigint): void {
  transfers.set(account, (transfers.get(account) ?? 0n) + amount);
}

/**
 * A record's hbar transfer list: net non-zero amounts in account order, as the network writes it (hedera-services
 * token service `RecordFinalizerBase.hbarChangesFrom` sorts them with `TokenComparators.ACCOUNT_AMOUNT_COMPARATOR`,
 * by account id), so that clients reading `transfers[i]` by position see what they would on a network.
 */
function netTransferList(transfers: Map<string, bigint>): LedgerTransaction['transfers'] {
  return [...transfers]
    .filter(([, amount]) => amount !== 0n)
    .sort(([a], [b]) => entityNum(a)! - entityNum(b)!)
    .map(([account, amount]) => ({ account, amount: Number(amount) }));
}

/** 48 bytes: the EVM block hash, then 16 bytes derived from it, so either form finds the block. */
function ledgerBlockHash(evmHash: string): string {
  const tail = createHash('sha256').update(Buffer.from(evmHash.slice(2), 'hex')).digest('hex').slice(0, 32);
  return `${evmHash.toLowerCase()}${tail}`;
}

/** The ledger's status for a transaction the EVM refused to take into its pool. */
function statusForEvmRefusal(message: string): string {
  const m = message.toLowerCase();
  if (m.includes('nonce')) return 'WRONG_NONCE';
  if (m.includes('insufficient funds')) return 'INSUFFICIENT_PAYER_BALANCE';
  if (m.includes('gas floor') || m.includes('requires at least') || m.includes('intrinsic gas')) return 'INSUFFICIENT_GAS';
  if (m.includes('fee') || m.includes('gas price')) return 'INSUFFICIENT_TX_FEE';
  return 'INVALID_ETHEREUM_TRANSACTION';
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
