/**
 * Submits signed Ethereum transactions to consensus nodes through @hashgraph/sdk, paid by the operator account.
 * Call data too large for one ledger transaction is uploaded to the file service first and referenced by file id.
 *
 * The SDK, with its gRPC and protobuf stack, holds about 50 MB resident: it loads on the first submission, so a relay
 * that only reads (most of them, most of the time) never carries it.
 */
import type { Client, FileId, PrivateKey } from '@hashgraph/sdk';
import { GatewayError, hidingCause } from '../errors.js';
import { consensusSubmissions } from '../metrics.js';
import type { LedgerConfig } from '../config/schema.js';
import { onFirstUse } from '../startOnce.js';
import { splitCallData } from './envelope.js';

/** Call data above this many bytes goes through the file service (a ledger transaction is at most 6 KiB). */
export const FILE_THRESHOLD_BYTES = 5_120;
/** The first file chunk (hex characters), as the SDK's EthereumFlow uploads it. */
const FIRST_CHUNK_HEX = 4_096;
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
  /** Submits and waits for the receipt; the first call loads the SDK, and concurrent first calls share one client. */
  submitEthereum(raw: Uint8Array): Promise<Submission>;
  close(): Promise<void>;
}

/** The operator's consensus client, made on the first submission. */
export function consensusOnDemand(ledger: LedgerConfig & { operatorId: string; operatorKey: string }): Consensus {
  const client = onFirstUse(async () => new ConsensusClient(await loadSdk(), ledger));
  return {
    async submitEthereum(raw) {
      return (await client.get()).submitEthereum(raw);
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

  /**
   * Submits and waits for the receipt. A consensus node's refusal (precheck or receipt status) is the official relay's
   * `Transaction rejected: <status>` (-32003); a failure without a status, SUBMISSION_FAILED.
   */
  async submitEthereum(raw: Uint8Array): Promise<Submission> {
    const { EthereumTransaction, PrecheckStatusError, ReceiptStatusError } = this.sdk;
    try {
      const tx = new EthereumTransaction();
      const { callData, withoutCallData } = splitCallData(raw);
      let callDataFileId: FileId | undefined;
      if (callData.length > FILE_THRESHOLD_BYTES) {
        callDataFileId = await this.uploadCallData(callData);
        tx.setCallDataFileId(callDataFileId);
      }
      // Small call data stays in the envelope, submitted exactly as the sender signed it.
      tx.setEthereumData(callDataFileId ? withoutCallData : raw);
      const response = await tx.execute(this.client);
      const transactionId = response.transactionId.toString();
      let status: string;
      try {
        status = (await response.getReceipt(this.client)).status.toString();
      } catch (err) {
        if (!(err instanceof ReceiptStatusError)) throw err;
        status = err.status.toString();
      }
      consensusSubmissions.inc({ status });
      if (!EXECUTED.has(status)) throw new GatewayError('TRANSACTION_REJECTED', status);
      return { transactionId, status, ...(callDataFileId ? { callDataFileId: callDataFileId.toString() } : {}) };
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      consensusSubmissions.inc({ status: err instanceof PrecheckStatusError ? err.status.toString() : 'error' });
      if (err instanceof PrecheckStatusError) throw new GatewayError('TRANSACTION_REJECTED', err.status.toString());
      throw hidingCause('SUBMISSION_FAILED', (err as Error).message);
    }
  }

  close(): void {
    this.client.close();
  }

  /** The file holds the call data hex-encoded, which is what consensus nodes read back. */
  private async uploadCallData(callData: Uint8Array): Promise<FileId> {
    const { FileAppendTransaction, FileCreateTransaction } = this.sdk;
    const hex = Buffer.from(callData).toString('hex');
    const operatorKey = this.client.operatorPublicKey;
    const create = await new FileCreateTransaction()
      .setContents(hex.slice(0, FIRST_CHUNK_HEX))
      .setKeys(operatorKey ? [operatorKey] : [])
      .execute(this.client);
    const fileId = (await create.getReceipt(this.client)).fileId;
    if (!fileId) throw new GatewayError('SUBMISSION_FAILED', 'the file service returned no file id');
    if (hex.length > FIRST_CHUNK_HEX) {
      const append = await new FileAppendTransaction().setFileId(fileId).setContents(hex.slice(FIRST_CHUNK_HEX)).setMaxChunks(1_000).execute(this.client);
      await append.getReceipt(this.client);
    }
    return fileId;
  }
}
