/**
 * Contract results and contract logs: the ledger's record of each Ethereum transaction joined with what the EVM
 * knows of it (the transaction, its receipt and its call trace). A recorded transaction never changes, so each one
 * is built once and kept; the log index grows as transactions are recorded.
 */
import { getBytes, keccak256 } from 'ethers';
import type { LedgerTransaction, LedgerView } from '../ledger/view.js';
import { hexNumber, hexQuantity, timestampNanos, weibarToTinybar, word, tinybarNumber } from './format.js';

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
  accessList?: unknown[];
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
    transaction_index: number;
  };
  timestamp: bigint;
  index: number;
  /** Contract that emitted the log. */
  contractId: string | null;
  /** The ledger's 48-byte transaction hash (logs can be looked up by either hash). */
  ledgerHash: string;
}

export interface EthRecord {
  tx: LedgerTransaction;
  /** The contract result as listings show it. */
  result: Record<string, unknown>;
  logs: ResultLog[];
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

/** Fee fields are stored in tinybar; an absent one is the empty `0x`. */
function tinybarHex(weibarHex: string | undefined): string {
  return weibarHex === undefined ? '0x' : hexQuantity(weibarToTinybar(BigInt(weibarHex)));
}

export class EthRecords {
  readonly #built = new Map<string, Promise<EthRecord>>();
  readonly #ethTxs: LedgerTransaction[] = [];
  #scanned = 0;
  readonly #logs: LogRow[] = [];
  #logsIndexed = 0;
  #logsUpdate: Promise<void> = Promise.resolve();

  constructor(private readonly view: LedgerView) {}

  /** Ethereum transactions in consensus order (the ledger's list only grows, so only new ones are scanned). */
  ethereumTransactions(): readonly LedgerTransaction[] {
    const all = this.view.transactions();
    for (; this.#scanned < all.length; this.#scanned++) if (all[this.#scanned].ethHash) this.#ethTxs.push(all[this.#scanned]);
    return this.#ethTxs;
  }

  record(tx: LedgerTransaction): Promise<EthRecord> {
    const key = tx.ethHash as string;
    let built = this.#built.get(key);
    if (!built) {
      built = this.#build(tx);
      this.#built.set(key, built);
      built.catch(() => this.#built.delete(key));
    }
    return built;
  }

  /** Every log in consensus order (timestamp, then index within the transaction). */
  async logs(): Promise<readonly LogRow[]> {
    this.#logsUpdate = this.#logsUpdate
      .catch(() => undefined)
      .then(async () => {
        const txs = this.ethereumTransactions();
        while (this.#logsIndexed < txs.length) {
          const record = await this.record(txs[this.#logsIndexed]);
          this.#logs.push(...this.#logRows(record));
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
        transaction_index: record.tx.index,
      },
      timestamp: timestampNanos(record.tx.consensusTimestamp),
      index: log.index,
      contractId: log.contract_id,
      ledgerHash: record.tx.hash,
    }));
  }

  async #build(tx: LedgerTransaction): Promise<EthRecord> {
    const hash = tx.ethHash as string;
    const evm = this.view.evm;
    // A transaction the ledger refused before execution is unknown to the EVM: its result has no EVM details.
    const [etx, receipt, trace] = (
      tx.evmExecuted === false
        ? [null, null, null]
        : await Promise.all([
            evm.request({ method: 'eth_getTransactionByHash', params: [hash] }),
            evm.request({ method: 'eth_getTransactionReceipt', params: [hash] }),
            evm.request({ method: 'debug_traceTransaction', params: [hash, { tracer: 'callTracer' }] }),
          ])
    ) as [EvmTransaction | null, EvmReceipt | null, CallFrame | null];

    const idOf = (address: string | null | undefined) => (address ? (this.view.account(address)?.id ?? null) : null);
    const block = this.view.blockByNumber(tx.blockNumber);
    const succeeded = tx.result === 'SUCCESS' && receipt?.status === '0x1';
    // A failed creation leaves no contract, though the receipt names the address it would have had.
    const created = succeeded ? (receipt?.contractAddress?.toLowerCase() ?? null) : null;
    const to = etx?.to?.toLowerCase() ?? null;
    const address = created ?? to;
    const contractId = address ? (tx.contractId ?? idOf(address)) : null;
    const output = trace?.output ?? '0x';
    const type = etx?.type === undefined ? null : hexNumber(etx.type);
    const dynamicFee = type !== null && type >= 2;
    const logs: ResultLog[] = (receipt?.logs ?? []).map((log, index) => ({
      address: log.address.toLowerCase(),
      bloom: logBloom(log),
      contract_id: idOf(log.address),
      data: log.data,
      index,
      topics: log.topics.map((t) => t.toLowerCase()),
    }));

    const result: Record<string, unknown> = {
      access_list: etx && (etx.accessList ?? []).length === 0 ? '0x' : null,
      ...(address ? { address } : {}),
      amount: etx ? tinybarNumber(etx.value) : 0,
      block_gas_used: block?.gasUsed ?? null,
      block_hash: block?.hash ?? null,
      block_number: block?.number ?? null,
      bloom: receipt?.logsBloom ?? '0x',
      call_result: output,
      chain_id: etx?.chainId ?? '0x',
      contract_id: contractId,
      created_contract_ids: createdAddresses(trace).map(idOf).filter((id): id is string => id !== null),
      error_message: succeeded ? null : output !== '0x' ? output : tx.result,
      // The spec types failed_initcode as a string, so it is left out (rather than null) unless a creation failed.
      ...(!succeeded && etx && !etx.to ? { failed_initcode: etx.input } : {}),
      from: etx?.from.toLowerCase() ?? null,
      function_parameters: etx?.input ?? null,
      gas_consumed: receipt ? hexNumber(receipt.gasUsed) : null,
      gas_limit: etx ? hexNumber(etx.gas) : 0,
      gas_price: dynamicFee ? '0x' : tinybarHex(etx?.gasPrice),
      gas_used: receipt ? hexNumber(receipt.gasUsed) : 0,
      hash,
      max_fee_per_gas: dynamicFee ? tinybarHex(etx?.maxFeePerGas) : '0x',
      max_priority_fee_per_gas: dynamicFee ? tinybarHex(etx?.maxPriorityFeePerGas) : '0x',
      nonce: etx ? hexNumber(etx.nonce) : null,
      r: etx ? word(etx.r) : null,
      result: tx.result,
      s: etx ? word(etx.s) : null,
      status: succeeded ? '0x1' : '0x0',
      timestamp: tx.consensusTimestamp,
      to,
      transaction_index: tx.index,
      type,
      v: etx ? hexNumber(type === 0 ? etx.v : (etx.yParity ?? etx.v)) : null,
    };
    return {
      tx,
      result,
      logs,
      contractId,
      from: etx?.from.toLowerCase() ?? null,
      ...(created && etx ? { creation: { address: created, initcode: etx.input } } : {}),
    };
  }
}
