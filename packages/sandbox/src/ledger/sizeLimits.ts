/**
 * The consensus node's transaction size limits, with the hiero consensus node's defaults: HederaConfig
 * `hedera.transaction.maxBytes` (6,144) for every transaction, and JumboTransactionsConfig (HIP-1086) for the
 * EthereumTransaction, the one transaction type allowed to be "jumbo": `maxTxnSize` 133,120 bytes for the whole signed
 * transaction, `ethereumMaxCallDataSize` 131,072 bytes for its call data once hydrated from a file.
 * Beyond them the node answers TRANSACTION_OVERSIZE: at ingest (precheck, no fee) for the size on the wire, and as
 * the receipt's status for call data found too large when the transaction is handled.
 */
export const TRANSACTION_MAX_BYTES = 6_144;
export const JUMBO_MAX_TRANSACTION_BYTES = 133_120;
export const JUMBO_MAX_CALL_DATA_BYTES = 131_072;

/** Fail fast, before parsing: the largest transaction any gRPC method accepts. */
export function oversizeOnTheWire(bytes: number, jumbo: boolean): boolean {
  return bytes > (jumbo ? JUMBO_MAX_TRANSACTION_BYTES : TRANSACTION_MAX_BYTES);
}

/** After parsing: only an EthereumTransaction may be larger than a normal transaction. */
export function oversizeForKind(bytes: number, kind: string): boolean {
  return bytes > TRANSACTION_MAX_BYTES && kind !== 'ethereumTransaction';
}
