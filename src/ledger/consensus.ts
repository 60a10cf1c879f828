/**
 * Submits signed Ethereum transactions to consensus nodes through @hashgraph/sdk, paid by the operator account.
 * Call data too large for one ledger transaction is uploaded to the file service first and referenced by file id.
 *
 * The SDK, with its gRPC and protobuf stack, holds about 50 MB resident: it loads on the first submission, so a relay
 * that only reads (most of them, most of the time) never carries it.
 */
import type { Client, FileId, PrivateKey, TransactionResponse } from '@hashgraph/sdk';
import { GatewayError, hidingCause } from '../errors.js';
import { consensusSubmissions } from '../metrics.js';
import type { LedgerConfig } from '../config/schema.js';
import { onFirstUse } from '../startOnce.js';

/** Call data above this many bytes goes through the file service (a ledger transaction is at most 6 KiB). */
export const FILE_THRESHOLD_BYTES = 5_120;
/** The first file chunk (hex characters), as the SDK's EthereumFlow uploads it. */
const FIRST_CHUNK_HEX = 4_096;
/** Content bytes per FileAppend, the SDK's default chunk size. */
const APPEND_CHUNK_HEX = 4_096;

/**
 * How many transactions the operator pays for to submit call data of this size: the EthereumTransaction, and for large
 * call data a FileCreate and its FileAppends. The hbar limits reserve this many times the largest fee.
 */
export function transactionsNeeded(callDataBytes: number): number {
  if (callDataBytes <= FILE_THRESHOLD_BYTES) return 1;
  return 2 + Math.ceil(Math.max(0, callDataBytes * 2 - FIRST_CHUNK_HEX) / APPEND_CHUNK_HEX);
}

/**
 * What a submission cost the operator, filled in as its transactions' records come back: the hbar the operator
 * account lost in each (its debits in the record's transfer list, as the official relay counts it). `complete` turns
 * false when a transaction reached consensus but its record could not be read.
 */
export interface SubmissionCost {
  tinybar: number;
  complete: boolean;
}
const SUBMIT_TIMEOUT_MS = 30_000;
const RECEIPT_MIN_BACKOFF_MS = 25;
/** Ledger statuses that mean the EVM ran the transaction: Ethereum-wise it is mined, with status 0 or 1. */
const EXECUTED = new Set(['SUCCESS', 'CONTRACT_REVERT_EXECUTED', 'INSUFFICIENT_GAS', 'CONTRACT_EXECUTION_EXCEPTION', 'MAX_CHILD_RECORDS_EXCEEDED']);

export interface Submission {
  transactionId: string;
  status: string;
  /** Set when the call data went through the file service. */
  callDataFileId?: string;
}

type Sdk = typeof import('@hashgraph/sdk');
const loadSdk = (): Promise<Sdk> => import('@hashgraph/sdk');

export interface Consensus {
  /**
   * Submits and waits for the receipt; the first call loads the SDK, and concurrent first calls share one client.
   * `cost` receives what the submission cost the operator, also when it fails.
   */
  submitEthereum(raw: Uint8Array, cost?: SubmissionCost): Promise<Submission>;
  close(): Promise<void>;
}

/** The operator's consensus client, made on the first submission. */
export function consensusOnDemand(ledger: LedgerConfig & { operatorId: string; operatorKey: string }): Consensus {
  const client = onFirstUse(async () => new ConsensusClient(await loadSdk(), ledger));
  return {
    async submitEthereum(raw, cost) {
      return (await client.get()).submitEthereum(raw, cost);
    },
    async close() {
      (await client.started()?.catch(() => undefined))?.close();
    },
  };
}

/**
 * DER keys carry their type; a bare hex key is taken as ECDSA secp256k1, the key type Ethereum accounts use.
 * A bad key is reported without its text: the SDK's own messages can echo it.
 */
export async function parseOperatorKey(text: string): Promise<PrivateKey> {
  return keyFrom(await loadSdk(), text);
}

function keyFrom({ PrivateKey }: Sdk, text: string): PrivateKey {
  const hex = text.trim().replace(/^0x/, '');
  try {
    return hex.length > 64 && hex.startsWith('30') ? PrivateKey.fromStringDer(hex) : PrivateKey.fromStringECDSA(hex);
  } catch {
    throw new Error('ledger operatorKey is neither a DER-encoded private key nor a 32-byte hex ECDSA key');
  }
}

class ConsensusClient {
  private readonly client: Client;

  constructor(
    private readonly sdk: Sdk,
    ledger: LedgerConfig & { operatorId: string; operatorKey: string },
  ) {
    const { AccountId, Client, Hbar } = sdk;
    this.client = new Client({
      network: ledger.consensus,
      scheduleNetworkUpdate: false,
      requestTimeout: SUBMIT_TIMEOUT_MS,
    });
    this.client.setOperator(AccountId.fromString(ledger.operatorId), keyFrom(sdk, ledger.operatorKey));
    this.client.setDefaultMaxTransactionFee(Hbar.fromTinybars(ledger.maxFeeTinybar));
    // Receipt polling starts at this back-off; the SDK's 250 ms default adds up to half a second to every write.
    this.client.setMinBackoff(RECEIPT_MIN_BACKOFF_MS);
  }

  /** Submits and waits for the receipt. Throws SUBMISSION_FAILED when the network did not run the transaction. */
  async submitEthereum(raw: Uint8Array, cost: SubmissionCost = { tinybar: 0, complete: true }): Promise<Submission> {
    const { EthereumTransaction, EthereumTransactionData, PrecheckStatusError, ReceiptStatusError } = this.sdk;
    try {
      const ethData = EthereumTransactionData.fromBytes(raw);
      const tx = new EthereumTransaction();
      let callDataFileId: FileId | undefined;
      if (ethData.callData.length > FILE_THRESHOLD_BYTES) {
        callDataFileId = await this.uploadCallData(ethData.callData, cost);
        ethData.callData = new Uint8Array();
        tx.setCallDataFileId(callDataFileId);
      }
      tx.setEthereumData(ethData.toBytes());
      const response = await tx.execute(this.client);
      const transactionId = response.transactionId.toString();
      let status: string;
      try {
        status = (await response.getReceipt(this.client)).status.toString();
      } catch (err) {
        if (!(err instanceof ReceiptStatusError)) throw err;
        status = err.status.toString();
      } finally {
        await this.addCost(response, cost);
      }
      consensusSubmissions.inc({ status });
      if (!EXECUTED.has(status)) throw new GatewayError('SUBMISSION_FAILED', status);
      return { transactionId, status, ...(callDataFileId ? { callDataFileId: callDataFileId.toString() } : {}) };
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      consensusSubmissions.inc({ status: err instanceof PrecheckStatusError ? err.status.toString() : 'error' });
      if (err instanceof PrecheckStatusError) throw new GatewayError('SUBMISSION_FAILED', err.status.toString());
      throw hidingCause('SUBMISSION_FAILED', (err as Error).message);
    }
  }

  close(): void {
    this.client.close();
  }

  /** The file holds the call data hex-encoded, which is what consensus nodes read back. */
  private async uploadCallData(callData: Uint8Array, cost: SubmissionCost): Promise<FileId> {
    const { FileAppendTransaction, FileCreateTransaction } = this.sdk;
    const hex = Buffer.from(callData).toString('hex');
    const operatorKey = this.client.operatorPublicKey;
    const create = await new FileCreateTransaction()
      .setContents(hex.slice(0, FIRST_CHUNK_HEX))
      .setKeys(operatorKey ? [operatorKey] : [])
      .execute(this.client);
    let fileId: FileId | null;
    try {
      fileId = (await create.getReceipt(this.client)).fileId;
    } finally {
      await this.addCost(create, cost);
    }
    if (!fileId) throw new GatewayError('SUBMISSION_FAILED', 'the file service returned no file id');
    if (hex.length > FIRST_CHUNK_HEX) {
      const appends = await new FileAppendTransaction()
        .setFileId(fileId)
        .setContents(hex.slice(FIRST_CHUNK_HEX))
        .setChunkSize(APPEND_CHUNK_HEX)
        .setMaxChunks(1_000)
        .executeAll(this.client);
      try {
        for (const append of appends) await append.getReceipt(this.client);
      } finally {
        for (const append of appends) await this.addCost(append, cost);
      }
    }
    return fileId;
  }

  /** Adds what one transaction that reached the network cost the operator, from its record. */
  private async addCost(response: TransactionResponse, cost: SubmissionCost): Promise<void> {
    const operator = this.client.operatorAccountId?.toString();
    try {
      const record = await response.getRecordQuery().setValidateReceiptStatus(false).execute(this.client);
      let net = 0;
      for (const t of record.transfers) if (t.accountId.toString() === operator) net += t.amount.toTinybars().toNumber();
      cost.tinybar += Math.max(0, -net);
    } catch {
      cost.complete = false;
    }
  }
}
