/** The part eth_sendRawTransaction and eth_sendRawTransactionSync share: every precheck, then the signed bytes to submit. */
import { GatewayError } from '../errors.js';
import { checkAgainstNetwork, checkDataSize, checkShape, checkSize, parseSignedTransaction } from '../ledger/precheck.js';
import type { Consensus } from '../ledger/consensus.js';
import { data } from './params.js';
import type { MethodEnv } from './types.js';

export interface Checked {
  /** The Ethereum transaction hash, lower case. */
  hash: string;
  bytes: Buffer;
  consensus: Consensus;
}

/** Mirror: GET /api/v1/network/fees (cached) and /api/v1/accounts/{sender}; nothing is spent when a check fails. */
export async function precheckRaw(rawParam: unknown, env: MethodEnv): Promise<Checked> {
  const raw = data(rawParam, 'signed transaction');
  if (!env.consensus) throw new GatewayError('WRITES_NOT_CONFIGURED');
  checkSize((raw.length - 2) / 2);
  const tx = parseSignedTransaction(raw);
  checkDataSize(tx);
  checkShape(tx, env.chainId, env.ledger.maxGas);
  await checkAgainstNetwork(tx, env.reads);
  return { hash: tx.hash!.toLowerCase(), bytes: Buffer.from(raw.slice(2), 'hex'), consensus: env.consensus };
}
