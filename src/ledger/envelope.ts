/**
 * A signed Ethereum transaction's call data, taken out of its envelope for the file service.
 *
 * The SDK's own `EthereumTransactionData` cannot decode a type-1 or type-2 envelope whose access list is not empty (it
 * reads each entry as a byte string and fails with `startsWith is not a function`), so the split is done here with
 * ethers' RLP, which leaves every other field byte for byte as signed.
 */
import { decodeRlp, encodeRlp, getBytes, hexlify, type RlpStructuredData } from 'ethers/utils';

/** Position of the call data among an envelope's RLP fields: legacy, EIP-2930 (type 1), EIP-1559 (type 2), EIP-7702 (type 4). */
const CALL_DATA_FIELD: Record<number, number> = { 1: 6, 2: 7, 4: 7 };
const LEGACY_CALL_DATA_FIELD = 5;

export interface SplitEnvelope {
  callData: Uint8Array;
  /** The envelope with empty call data, as consensus nodes expect beside a call-data file. */
  withoutCallData: Uint8Array;
}

export function splitCallData(raw: Uint8Array): SplitEnvelope {
  const { type, fields, index } = decode(raw);
  const callData = getBytes(fields[index] as string);
  const emptied = fields.slice();
  emptied[index] = '0x';
  const body = getBytes(encodeRlp(emptied));
  return { callData, withoutCallData: type === undefined ? body : new Uint8Array([type, ...body]) };
}

function decode(raw: Uint8Array): { type: number | undefined; fields: RlpStructuredData[]; index: number } {
  // A typed envelope starts with its type byte (below 0x7f); a legacy one is an RLP list (0xc0 and up).
  const type = raw[0] < 0x7f ? raw[0] : undefined;
  const fields = decodeRlp(hexlify(type === undefined ? raw : raw.subarray(1)));
  const index = type === undefined ? LEGACY_CALL_DATA_FIELD : CALL_DATA_FIELD[type];
  if (!Array.isArray(fields) || index === undefined || typeof fields[index] !== 'string') {
    throw new Error(`not a signed Ethereum transaction envelope (type ${type ?? 'legacy'})`);
  }
  return { type, fields, index };
}
