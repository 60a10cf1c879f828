/**
 * The part eth_sendRawTransaction and eth_sendRawTransactionSync share: every precheck, then the submission with its
 * hbar reservation.
 */
import { GatewayError } from '../errors.js';
import { transactionsNeeded, type Submission, type SubmissionCost } from '../ledger/consensus.js';
import { checkAgainstNetwork, checkDataSize, checkShape, checkSize, parseSignedTransaction } from '../ledger/precheck.js';
import { data } from './params.js';
import type { MethodEnv } from './types.js';

export interface Checked {
  /** The Ethereum transaction hash, lower case. */
  hash: string;
  /** The sender, and the envelope as hex: what the pending pool keeps. */
  from: string;
  raw: string;
  bytes: Buffer;
  callDataBytes: number;
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
  return { hash: tx.hash!.toLowerCase(), from: tx.from!, raw, bytes: Buffer.from(raw.slice(2), 'hex'), callDataBytes: (tx.data.length - 2) / 2 };
}

/**
 * Consensus: the EthereumTransaction (and the file service's transactions where needed), each followed by its record,
 * what it cost the operator, which settles the write's hbar reservation. Refused by the hbar limits, a write has cost
 * nothing; admitted, it holds its largest fee until settled.
 */
export async function submitChecked(checked: Checked, env: MethodEnv, onAccepted?: () => void): Promise<Submission> {
  const reservation = await env.hbar?.reserve(env.ctx.key, env.ledger.maxFeeTinybar * transactionsNeeded(checked.callDataBytes, env.ledger.jumboTransactions));
  const cost: SubmissionCost = { tinybar: 0, complete: true };
  // Pending from submission until the consensus receipt: then the transaction has run, one way or the other.
  await env.pending.add(checked.from, checked.raw);
  try {
    return await env.consensus!.submitEthereum(checked.bytes, cost, onAccepted);
  } finally {
    await env.pending.remove(checked.from, checked.raw);
    await reservation?.settle(cost.complete ? cost.tinybar : reservation.tinybar);
  }
}
