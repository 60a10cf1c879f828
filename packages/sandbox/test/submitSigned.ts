import { createHash } from 'node:crypto';
import { getBytes } from 'ethers';
import type { LedgerChain } from '../src/ledger/chain.js';

let validStart = 1_700_000_000;

/** Submits a signed Ethereum transaction as the relay's operator would (a fresh transaction id each time); answers the precheck status. */
export function submitSigned(chain: LedgerChain, signed: string, maxGasAllowanceTinybar = 0n): Promise<string> {
  const bytes = getBytes(signed);
  return chain.submitEthereumTransaction({
    transactionId: `${chain.operator.accountId}-${validStart++}-0`,
    payer: chain.operator.accountId,
    hash: `0x${createHash('sha384').update(bytes).digest('hex')}`,
    ethereumData: bytes,
    maxGasAllowanceTinybar,
  });
}
