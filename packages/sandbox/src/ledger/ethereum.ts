/** Decoding the `ethereumData` of an EthereumTransaction the way the ledger does, with ethers as the RLP codec. */
import { Transaction } from 'ethers';

/** A signed Ethereum transaction, or undefined when the bytes are not one. */
export function decodeSigned(data: Uint8Array): Transaction | undefined {
  try {
    const tx = Transaction.from(`0x${Buffer.from(data).toString('hex')}`);
    // Recovering the sender validates the signature (r, s in range, recoverable).
    return tx.signature && tx.from ? tx : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Large call data arrives in a file, hex-encoded (as the official relay writes it), while `ethereumData` carries the
 * transaction with empty call data and the signature over the full one. Returns the full signed transaction, or
 * undefined when the file's text is not hex or the result does not decode.
 */
export function withCallData(tx: Transaction, fileContents: Buffer): Transaction | undefined {
  const text = fileContents.toString('latin1').trim().replace(/^0x/, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(text)) return undefined;
  try {
    const full = tx.clone();
    full.data = `0x${text}`;
    return decodeSigned(Buffer.from(full.serialized.slice(2), 'hex'));
  } catch {
    return undefined;
  }
}
