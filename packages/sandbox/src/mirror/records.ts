/**
 * Contract results and contract logs: the ledger's record of each Ethereum transaction joined with what the EVM
 * knows of it (the transaction, its receipt and its call trace). A recorded transaction never changes, so each one
 * is built once and kept; the log index grows as transactions are recorded.
 *
 * A log's `index` is its position in the block, counted across the block's transactions in consensus order, as the
 * real node's importer numbers `contract_log.index` (one counter per record file, shared by every item of it:
 * RecordFileParser.doParse and RecordItem.getAndIncrementLogIndex; older rows renumbered by
 * ContractLogIndexMigration), which is the Ethereum `logIndex`. Native token transactions add the importer's
 * synthetic Transfer logs (syntheticLogs.ts) to the same listing and the same count.
 */
import { Transaction, getBytes, keccak256 } from 'ethers';
import { failureMessage } from '../ledger/haltReasons.js';
import { entityNum, longZeroAddress } from '../ledger/ids.js';
import type { LedgerTransaction, LedgerView } from '../ledger/view.js';
import { entityIdAt } from './entities.js';
import { syntheticTransferLogs } from './syntheticLogs.js';
import { hasSyntheticResult } from './syntheticResults.js';
import { WEIBAR_PER_TINYBAR, hexNumber, hexQuantity, rlpIntegerBytes, timestampNanos, word, tinybarNumber } from './format.js';

interface EvmTransaction {
  from: string;
  to: string | null;
  nonce: string;
  input: string;
  value: string;
  gas: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  type?: string;
  chainId?: string;
  accessList?: Array<{ address: string; storageKeys: string[] }>;
  authorizationList?: Array<{ chainId: string; address: string; nonce: string; yParity: string; r: string; s: string }>;
  v: string;
  yParity?: string;
  r: string;
  s: string;
}

interface EvmLog {
  address: string;
  topics: string[];
  data: string;
}

interface EvmReceipt {
  status: string;
  gasUsed: string;
  contractAddress: string | null;
  logs: EvmLog[];
  logsBloom: string;
}

/** A frame of the EVM's `callTracer`. */
interface CallFrame {
  type: string;
  to?: string;
  output?: string;
  error?: string;
  calls?: CallFrame[];
}

/** A log as a contract result embeds it. */
export interface ResultLog {
  address: string;
  bloom: string;
  contract_id: string | null;
  data: string;
  index: number;
  topics: string[];
}

/** A log as the logs listings show it, with what the filters look at. */
export interface LogRow {
  body: ResultLog & {
    block_hash: string | null;
    block_number: number | null;
    root_contract_id: string | null;
    timestamp: string;
    transaction_hash: string;
    transaction_index: number | null;
  };
  timestamp: bigint;
  index: number;
  /** Contract that emitted the log. */
  contractId: string | null;
  /** The ledger's 48-byte transaction hash (logs can be looked up by either hash). */
  ledgerHash: string;
}

/** A storage slot the transaction read or wrote, as single contract results list them. */
export interface StateChange {
  address: string;
  contract_id: string | null;
  slot: string;
  value_read: string;
  /** Null when the transaction only read the slot. */
  value_written: string | null;
}

/** `prestateTracer` output: per address, the storage slots touched (before) or changed (after, in diff mode). */
type Prestate = Record<string, { storage?: Record<string, string> }>;

/** The wrapped Ethereum transaction's monetary fields in weibar; absent fee fields are undefined. */
/**
 * A contract result's monetary fields, in weibar. A fee field the transaction's type lacks is undefined (shown `0x`);
 * one of a result without an Ethereum transaction is null (shown null).
 */
export interface Money {
  value: bigint;
  gasPrice?: bigint | null;
  maxFeePerGas?: bigint | null;
  maxPriorityFeePerGas?: bigint | null;
  /**
   * A consensus-node call's gas price: the fee schedule's ContractCall price in tinybar, which the real node shows
   * unconverted whatever `hbar` asks (rest FileDataService.getFeeSchedule into ContractResultDetailsViewModel, v0.160+).
   */
  feeScheduleGasPriceTinybar?: bigint;
}

export interface EthRecord {
  tx: LedgerTransaction;
  /**
   * The fields every contract result shows, as the real node's listing by contract (`/contracts/{id}/results`)
   * gives them: no Ethereum transaction fields, `amount` in tinybar.
   */
  base: Record<string, unknown>;
  /** What `/contracts/results` and the single results add: block, status and the Ethereum transaction's fields. */
  details: Record<string, unknown>;
  /** Null when the ledger refused the transaction before the EVM saw it. */
  money: Money | null;
  logs: ResultLog[];
  /** Where the next transaction of the same block starts numbering its logs. */
  nextLogIndex: number;
  /** The contract called or created, the one `/contracts/{id}/results` files it under. */
  contractId: string | null;
  /** Sender's EVM address, lower case. */
  from: string | null;
  /** For a successful creation: the address created and the init code, for `/contracts/{id}`. */
  creation?: { address: string; initcode: string };
}

/** Bits a log sets in an Ethereum bloom filter (the address and each topic, three bits each). */
function logBloom(log: EvmLog): string {
  const bloom = new Uint8Array(256);
  for (const item of [log.address, ...log.topics]) {
    const h = getBytes(keccak256(item));
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i] << 8) | h[i + 1]) & 2047;
      bloom[255 - (bit >> 3)] |= 1 << (bit & 7);
    }
  }
  return `0x${Buffer.from(bloom).toString('hex')}`;
}

function createdAddresses(frame: CallFrame | null): string[] {
  if (!frame || frame.error) return [];
  const own = (frame.type === 'CREATE' || frame.type === 'CREATE2') && frame.to ? [frame.to.toLowerCase()] : [];
  return [...own, ...(frame.calls ?? []).flatMap(createdAddresses)];
}

const optionalBigInt = (hex: string | undefined) => (hex === undefined ? undefined : BigInt(hex));

/** An EIP-7702 authorization as the real node lists it. */
function authorization(a: NonNullable<EvmTransaction['authorizationList']>[number]) {
  return { address: a.address.toLowerCase(), chain_id: hexQuantity(BigInt(a.chainId)), nonce: hexNumber(a.nonce), r: word(a.r), s: word(a.s), y_parity: hexQuantity(BigInt(a.yParity)) };
}

/** What a recorded transaction yields never changes: computed once per key, forgotten only if it failed. */
function memo<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let value = cache.get(key);
  if (!value) {
    value = make();
    cache.set(key, value);
    value.catch(() => cache.delete(key));
  }
  return value;
}

export class EthRecords {
  readonly #built = new Map<string, Promise<EthRecord>>();
  readonly #stateChanges = new Map<string, Promise<StateChange[]>>();
  readonly #ethTxs: LedgerTransaction[] = [];
  /** The Ethereum transactions and the native ones `/contracts/results` lists a synthetic row for. */
  readonly #listedTxs: LedgerTransaction[] = [];
  /**
   * Position in the ledger's transaction list, to walk back through a block; by record, as a child record shares its
   * parent's transaction id.
   */
  readonly #position = new Map<LedgerTransaction, number>();
  #scanned = 0;
  readonly #logs: LogRow[] = [];
  #logsIndexed = 0;
  #logsUpdate: Promise<void> = Promise.resolve();

  constructor(private readonly view: LedgerView) {}

  /** Ethereum transactions in consensus order (the ledger's list only grows, so only new ones are scanned). */
  ethereumTransactions(): readonly LedgerTransaction[] {
    const all = this.view.transactions();
    for (; this.#scanned < all.length; this.#scanned++) {
      const tx = all[this.#scanned];
      this.#position.set(tx, this.#scanned);
      if (tx.ethHash) this.#ethTxs.push(tx);
      if (tx.ethHash || hasSyntheticResult(this.view, tx)) this.#listedTxs.push(tx);
    }
    return this.#ethTxs;
  }

  /** What `/contracts/results` lists, in consensus order: Ethereum transactions and synthetic results. */
  listedTransactions(): readonly LedgerTransaction[] {
    this.ethereumTransactions();
    return this.#listedTxs;
  }

  /**
   * The block position of the transaction's first log: where the block's previous Ethereum transaction left off,
   * plus the synthetic token-transfer logs of the native transactions since (they share the block's counter).
   */
  async #firstLogIndex(tx: LedgerTransaction): Promise<number> {
    this.ethereumTransactions();
    const all = this.view.transactions();
    let synthetic = 0;
    for (let i = (this.#position.get(tx) ?? 0) - 1; i >= 0 && all[i].blockNumber === tx.blockNumber; i--) {
      if (all[i].ethHash) return synthetic + (await this.record(all[i])).nextLogIndex;
      synthetic += syntheticTransferLogs(this.view, all[i]).length;
    }
    return synthetic;
  }

  /**
   * The transaction's `transaction_index` in contract results and logs: its position among the block's EVM
   * transactions, not among all of them (mirror node PR #13657, importer RecordFileParser.setEvmTransactionIndex).
   * Each ContractCall, ContractCreate and EthereumTransaction with a contract result takes the next slot, except
   * WRONG_NONCE, which never reached the EVM (null); a native transaction takes one when its first synthetic log
   * claims it (SyntheticContractLogServiceImpl: RecordItem.claimEvmTransactionIndex); any other has none.
   */
  evmTransactionIndex(tx: LedgerTransaction): number | null {
    if (!this.#holdsEvmSlot(tx)) return null;
    this.ethereumTransactions();
    const all = this.view.transactions();
    let index = 0;
    for (let i = (this.#position.get(tx) ?? 0) - 1; i >= 0 && all[i].blockNumber === tx.blockNumber; i--) {
      if (this.#holdsEvmSlot(all[i])) index++;
    }
    return index;
  }

  #holdsEvmSlot(tx: LedgerTransaction): boolean {
    if (tx.ethHash) return tx.result !== 'WRONG_NONCE';
    return syntheticTransferLogs(this.view, tx).length > 0;
  }

  record(tx: LedgerTransaction): Promise<EthRecord> {
    return memo(this.#built, tx.ethHash as string, () => this.#build(tx));
  }

  /**
   * The storage slots a transaction read and wrote, from the EVM's prestate trace (what it touched, and in diff mode
   * what it changed). Traced on first request only: listings do not show them.
   */
  stateChanges(record: EthRecord): Promise<StateChange[]> {
    return memo(this.#stateChanges, record.tx.ethHash as string, () => this.#traceStateChanges(record));
  }

  async #traceStateChanges(record: EthRecord): Promise<StateChange[]> {
    if (record.tx.evmExecuted === false) return [];
    const hash = record.tx.evmHash ?? (record.tx.ethHash as string);
    const trace = (config: object) => this.view.evm.request({ method: 'debug_traceTransaction', params: [hash, { tracer: 'prestateTracer', ...config }] });
    const [touched, diff] = (await Promise.all([trace({}), trace({ tracerConfig: { diffMode: true } })])) as [Prestate, { post: Prestate }];
    return Object.entries(touched).flatMap(([address, { storage }]) =>
      Object.entries(storage ?? {}).map(([slot, read]) => ({
        address: address.toLowerCase(),
        contract_id: entityIdAt(this.view, address),
        slot: word(slot),
        value_read: word(read),
        value_written: diff.post[address]?.storage?.[slot] === undefined ? null : word(diff.post[address].storage![slot]),
      })),
    );
  }

  /** Every log in consensus order (timestamp, then index). */
  async logs(): Promise<readonly LogRow[]> {
    this.#logsUpdate = this.#logsUpdate
      .catch(() => undefined)
      .then(async () => {
        this.ethereumTransactions();
        const all = this.view.transactions();
        while (this.#logsIndexed < all.length) {
          const tx = all[this.#logsIndexed];
          this.#logs.push(...(tx.ethHash ? this.#logRows(await this.record(tx)) : await this.#syntheticRows(tx)));
          this.#logsIndexed++;
        }
      });
    await this.#logsUpdate;
    return this.#logs;
  }

  #logRows(record: EthRecord): LogRow[] {
    const block = this.view.blockByNumber(record.tx.blockNumber);
    return record.logs.map((log) => ({
      body: {
        ...log,
        block_hash: block?.hash ?? null,
        block_number: block?.number ?? null,
        root_contract_id: record.contractId,
        timestamp: record.tx.consensusTimestamp,
        transaction_hash: record.tx.ethHash as string,
        transaction_index: this.evmTransactionIndex(record.tx),
      },
      timestamp: timestampNanos(record.tx.consensusTimestamp),
      index: log.index,
      contractId: log.contract_id,
      ledgerHash: record.tx.hash,
    }));
  }

  /**
   * A native token transaction's synthetic Transfer logs, filed under the token, as the importer writes them
   * (SyntheticContractLogServiceImpl): the bloom a single zero byte, the transaction hash the first 32 bytes of the
   * ledger's 48 (RecordItem.getTransactionHash), which the logs can still be found by.
   */
  async #syntheticRows(tx: LedgerTransaction): Promise<LogRow[]> {
    const logs = syntheticTransferLogs(this.view, tx);
    if (logs.length === 0) return [];
    const block = this.view.blockByNumber(tx.blockNumber);
    const first = await this.#firstLogIndex(tx);
    return logs.map((log, i) => ({
      body: {
        ...log,
        bloom: '0x00',
        index: first + i,
        block_hash: block?.hash ?? null,
        block_number: block?.number ?? null,
        root_contract_id: log.contract_id,
        timestamp: tx.consensusTimestamp,
        transaction_hash: tx.hash.slice(0, 66),
        transaction_index: this.evmTransactionIndex(tx),
      },
      timestamp: timestampNanos(tx.consensusTimestamp),
      index: first + i,
      contractId: log.contract_id,
      ledgerHash: tx.hash,
    }));
  }

  async #build(tx: LedgerTransaction): Promise<EthRecord> {
    const hash = tx.ethHash as string;
    // A consensus-node contract call (ContractCall, ContractCreate) ran in the EVM under a hash of the EVM's own.
    const evmHash = tx.evmHash ?? hash;
    const hapi = tx.contractCall;
    const evm = this.view.evm;
    // A transaction the ledger refused before execution is unknown to the EVM: its result has no EVM details.
    const [evmTx, receipt, trace] = (
      tx.evmExecuted === false
        ? [null, null, null]
        : await Promise.all([
            evm.request({ method: 'eth_getTransactionByHash', params: [evmHash] }),
            evm.request({ method: 'eth_getTransactionReceipt', params: [evmHash] }),
            evm.request({ method: 'debug_traceTransaction', params: [evmHash, { tracer: 'callTracer' }] }),
          ])
    ) as [EvmTransaction | null, EvmReceipt | null, CallFrame | null];
    // One without a chain id ran as the EVM's own stand-in: its signature is as signed, and its chain id empty.
    const signature = tx.signedEthereum ? Transaction.from(tx.signedEthereum).signature : null;
    const etx = evmTx && signature ? { ...evmTx, chainId: '0x', v: hexQuantity(BigInt(signature.v)), r: signature.r, s: signature.s } : evmTx;

    const idOf = (address: string | null | undefined) => (address ? entityIdAt(this.view, address) : null);
    const sender = etx ? this.view.account(etx.from.toLowerCase()) : undefined;
    const block = this.view.blockByNumber(tx.blockNumber);
    const succeeded = tx.result === 'SUCCESS' && receipt?.status === '0x1';
    // A failed creation leaves no contract, though the receipt names the address it would have had.
    const hapiCreated = hapi && tx.name === 'CONTRACTCREATEINSTANCE' && tx.contractId ? (this.view.account(tx.contractId)?.evmAddress ?? null) : null;
    const created = succeeded ? (receipt?.contractAddress?.toLowerCase() ?? hapiCreated) : null;
    const to = etx?.to?.toLowerCase() ?? null;
    const address = created ?? to;
    const contractId = address ? (tx.contractId ?? idOf(address)) : null;
    const contract = contractId ? this.view.account(contractId) : undefined;
    // A creation's output is the code it deposits; its result shows none, as the network's ContractFunctionResult.
    const output = hapiCreated ? '0x' : (trace?.output ?? '0x');
    // A consensus-node call has no Ethereum transaction: its type, nonce, signature and chain id are null.
    const ethTx = hapi ? null : etx;
    const type = ethTx?.type === undefined ? null : hexNumber(ethTx.type);
    const dynamicFee = type !== null && type >= 2;
    const firstLogIndex = await this.#firstLogIndex(tx);
    const logs: ResultLog[] = (receipt?.logs ?? []).map((log, i) => ({
      address: log.address.toLowerCase(),
      bloom: logBloom(log),
      contract_id: idOf(log.address),
      data: log.data,
      index: firstLogIndex + i,
      topics: log.topics.map((t) => t.toLowerCase()),
    }));

    const base: Record<string, unknown> = {
      address: address ? (this.view.account(address)?.evmAddress ?? address) : null,
      amount: hapi ? hapi.amountTinybar : etx ? tinybarNumber(etx.value) : 0,
      bloom: receipt?.logsBloom ?? '0x',
      call_result: output,
      contract_id: contractId,
      // A consensus-node creation ran as a call: the contract it created leads the list, as CREATE frames would.
      created_contract_ids: [...(hapiCreated && created ? [created] : []), ...createdAddresses(trace)].map(idOf).filter((id): id is string => id !== null),
      error_message: succeeded ? null : failureMessage(tx, output),
      // The real node names the sender and the contract by entity: their long-zero addresses, not their EVM ones.
      from: sender ? longZeroAddress(sender.num) : (etx?.from.toLowerCase() ?? null),
      // A transaction the EVM never ran still shows its signed call data and gas limit, never null: the real node
      // files a default result for it (importer ContractResultServiceImpl.addDefaultEthereumTransactionContractResult),
      // and the official relay reads function_parameters.substring(...) when it builds the receipt.
      function_parameters: hapi ? hapi.functionParameters : (etx?.input ?? tx.signedCall?.callData ?? '0x'),
      gas_consumed: hapi ? hapi.gasUsed : receipt ? hexNumber(receipt.gasUsed) : null,
      gas_limit: hapi ? hapi.gasLimit : etx ? hexNumber(etx.gas) : (tx.signedCall?.gasLimit ?? 0),
      gas_used: hapi ? hapi.gasUsed : (tx.gasUsed ?? (receipt ? hexNumber(receipt.gasUsed) : 0)),
      hash,
      timestamp: tx.consensusTimestamp,
      to: contract ? longZeroAddress(contract.num) : contractId ? longZeroAddress(entityNum(contractId)!) : null,
    };
    const details: Record<string, unknown> = {
      // Where the signed transaction names a recipient, the detailed views show that address as signed.
      ...(to ? { to } : {}),
      access_list: hapi ? null : (etx?.accessList ?? []).map((e) => ({ address: e.address.toLowerCase(), storage_keys: e.storageKeys.map((k) => k.toLowerCase()) })),
      ...(ethTx ? { authorization_list: (ethTx.authorizationList ?? []).map(authorization) } : {}),
      block_gas_used: block?.gasUsed ?? null,
      block_hash: block?.hash ?? null,
      block_number: block?.number ?? null,
      // A consensus-node call has no Ethereum transaction; the real node shows its configured chain id and type 0
      // (legacy) there, not null (ContractResultDetailsViewModel's defaults, hiero-mirror-node #13487, v0.160+).
      chain_id: hapi ? hexQuantity(BigInt(this.view.chainId)) : (etx?.chainId ?? hexQuantity(BigInt(this.view.chainId))),
      // A failed transaction's data (for a creation, its init code), as the real node gives it; null otherwise.
      failed_initcode: !succeeded && ethTx && ethTx.input !== '0x' ? ethTx.input : null,
      nonce: ethTx ? hexNumber(ethTx.nonce) : null,
      r: ethTx ? rlpIntegerBytes(ethTx.r) : null,
      result: tx.result,
      s: ethTx ? rlpIntegerBytes(ethTx.s) : null,
      status: succeeded ? '0x1' : '0x0',
      transaction_index: this.evmTransactionIndex(tx),
      type: type ?? 0,
      v: ethTx ? hexNumber(type === 0 ? ethTx.v : (ethTx.yParity ?? ethTx.v)) : null,
    };
    const money: Money | null = hapi
      ? { value: BigInt(hapi.amountTinybar) * WEIBAR_PER_TINYBAR, gasPrice: null, maxFeePerGas: null, maxPriorityFeePerGas: null, feeScheduleGasPriceTinybar: BigInt(this.view.gasPriceTinybar()) }
      : etx && {
      value: BigInt(etx.value),
      gasPrice: dynamicFee ? undefined : optionalBigInt(etx.gasPrice),
      maxFeePerGas: dynamicFee ? optionalBigInt(etx.maxFeePerGas) : undefined,
      maxPriorityFeePerGas: dynamicFee ? optionalBigInt(etx.maxPriorityFeePerGas) : undefined,
    };
    return {
      tx,
      base,
      details,
      money,
      logs,
      nextLogIndex: firstLogIndex + logs.length,
      contractId,
      from: etx?.from.toLowerCase() ?? null,
      ...(created && etx ? { creation: { address: created, initcode: hapi?.initcode ?? etx.input } } : {}),
    };
  }
}
