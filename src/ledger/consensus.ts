/**
 * Submits signed Ethereum transactions to consensus nodes through @hashgraph/sdk, paid by the operator account.
 *
 * Call data goes inside the EthereumTransaction, up to the network's jumbo limit (HIP-1086: 128 KiB of call data in a
 * transaction of up to 130 KiB, as the official relay does with JUMBO_TX_ENABLED). On a network without jumbo
 * transactions (ledger.jumboTransactions false, or a node that answers TRANSACTION_OVERSIZE) call data above 5 KiB is
 * uploaded to the file service first and referenced by file id.
 *
 * The SDK, with its gRPC and protobuf stack, holds about 50 MB resident: it loads on the first submission, so a relay
 * that only reads (most of them, most of the time) never carries it.
 */
import type { Client, FileId, PrivateKey, TransactionResponse } from '@hashgraph/sdk';
import { GatewayError, hidingCause } from '../errors.js';
import { consensusSubmissions } from '../metrics.js';
import type { LedgerConfig } from '../config/schema.js';
import { onFirstUse } from '../startOnce.js';
import { splitCallData, type SplitEnvelope } from './envelope.js';

/**
 * Without jumbo transactions, call data above this many bytes goes through the file service: a ledger transaction
 * is at most 6 KiB (hedera.transaction.maxBytes 6,144). The official relay's FILE_APPEND_CHUNK_SIZE.
 */
export const FILE_THRESHOLD_BYTES = 5_120;
/** The first file chunk (hex characters), as the SDK's EthereumFlow uploads it. */
const FIRST_CHUNK_HEX = 4_096;
/** Content bytes per FileAppend, the SDK's default chunk size. */
const APPEND_CHUNK_HEX = 4_096;

/**
 * How many transactions the operator pays for to submit call data of this size: the EthereumTransaction, and for large
 * call data on a network without jumbo transactions a FileCreate and its FileAppends. The hbar limits reserve this
 * many times the largest fee. A network configured for jumbo transactions that answers TRANSACTION_OVERSIZE after all
 * costs the file service's transactions too: the settlement records them, beyond the reservation.
 */
export function transactionsNeeded(callDataBytes: number, jumbo: boolean): number {
  if (jumbo || callDataBytes <= FILE_THRESHOLD_BYTES) return 1;
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
/**
 * Ledger statuses that mean the EVM ran the transaction: Ethereum-wise it is mined, with status 0 or 1. Besides a
 * revert, the statuses of exceptional halts (hiero-consensus-node CustomExceptionalHaltReason.statusFor): running out
 * of gas, a state change in a static call, value sent to a system account (INVALID_CONTRACT_ID, which
 * CustomMessageCallProcessor halts with), and any other halt.
 */
const EXECUTED = new Set([
  'SUCCESS',
  'CONTRACT_REVERT_EXECUTED',
  'INSUFFICIENT_GAS',
  'CONTRACT_EXECUTION_EXCEPTION',
  'LOCAL_CALL_MODIFICATION_EXCEPTION',
  'INVALID_CONTRACT_ID',
  'MAX_CHILD_RECORDS_EXCEEDED',
]);

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
   * `cost` receives what the submission cost the operator, also when it fails. `onAccepted` runs once a node has
   * accepted the EthereumTransaction (precheck OK), before its receipt is in.
   */
  submitEthereum(raw: Uint8Array, cost?: SubmissionCost, onAccepted?: () => void): Promise<Submission>;
  close(): Promise<void>;
}

/** The operator's consensus client, made on the first submission. */
export function consensusOnDemand(ledger: LedgerConfig & { operatorId: string; operatorKey: string }): Consensus {
  const client = onFirstUse(async () => new ConsensusClient(await loadSdk(), ledger));
  return {
    async submitEthereum(raw, cost, onAccepted) {
      return (await client.get()).submitEthereum(raw, cost, onAccepted);
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
  private readonly jumbo: boolean;

  constructor(
    private readonly sdk: Sdk,
    ledger: LedgerConfig & { operatorId: string; operatorKey: string },
  ) {
    this.jumbo = ledger.jumboTransactions;
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

  /**
   * Submits and waits for the receipt. A consensus node's refusal (precheck or receipt status) is the official relay's
   * `Transaction rejected: <status>` (-32003); a failure without a status, SUBMISSION_FAILED.
   */
  async submitEthereum(raw: Uint8Array, cost: SubmissionCost = { tinybar: 0, complete: true }, onAccepted?: () => void): Promise<Submission> {
    const { PrecheckStatusError, ReceiptStatusError } = this.sdk;
    try {
      const envelope = splitCallData(raw);
      const inline = this.jumbo || envelope.callData.length <= FILE_THRESHOLD_BYTES;
      const sent = await this.send(raw, envelope, inline, cost).catch((err: unknown) => {
        // A network without jumbo transactions refuses the whole transaction at precheck, before any fee is charged.
        if (!inline || !(err instanceof PrecheckStatusError) || err.status.toString() !== 'TRANSACTION_OVERSIZE') throw err;
        consensusSubmissions.inc({ status: err.status.toString() });
        return this.send(raw, envelope, false, cost);
      });
      onAccepted?.();
      const transactionId = sent.response.transactionId.toString();
      let status: string;
      try {
        status = (await sent.response.getReceipt(this.client)).status.toString();
      } catch (err) {
        if (!(err instanceof ReceiptStatusError)) throw err;
        status = err.status.toString();
      } finally {
        await this.addCost(sent.response, cost);
      }
      consensusSubmissions.inc({ status });
      if (!EXECUTED.has(status)) throw new GatewayError('TRANSACTION_REJECTED', status);
      return { transactionId, status, ...(sent.callDataFileId ? { callDataFileId: sent.callDataFileId.toString() } : {}) };
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      consensusSubmissions.inc({ status: err instanceof PrecheckStatusError ? err.status.toString() : 'error' });
      if (err instanceof PrecheckStatusError) throw new GatewayError('TRANSACTION_REJECTED', err.status.toString());
      throw hidingCause('SUBMISSION_FAILED', (err as Error).message);
    }
  }

  /** One EthereumTransaction, its call data inline or uploaded to a file first; resolves once a node accepted it. */
  /** Inline, the envelope goes exactly as the sender signed it; otherwise without its call data, which the file holds. */
  private async send(raw: Uint8Array, envelope: SplitEnvelope, inline: boolean, cost: SubmissionCost) {
    const tx = new this.sdk.EthereumTransaction();
    let callDataFileId: FileId | undefined;
    if (inline) tx.setEthereumData(raw);
    else {
      callDataFileId = await this.uploadCallData(envelope.callData, cost);
      tx.setEthereumData(envelope.withoutCallData).setCallDataFileId(callDataFileId);
    }
    return { response: await tx.execute(this.client), callDataFileId };
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
