/**
 * The part eth_sendRawTransaction and eth_sendRawTransactionSync share: every precheck, then the submission with its
 * hbar reservation, one sender's transactions in turn (src/ledger/senderOrder.ts).
 */
import { GatewayError } from '../errors.js';
import { transactionsNeeded, type Submission, type SubmissionCost } from '../ledger/consensus.js';
import { checkAgainstNetwork, checkDataSize, checkShape, checkSize, parseSignedTransaction } from '../ledger/precheck.js';
import { sleep } from '../rpc/sendSync.js';
import { data } from './params.js';
import type { HbarReservation } from '../limits/hbarBudgets.js';
import type { MethodEnv } from './types.js';

export interface Checked {
  /** The Ethereum transaction hash, lower case. */
  hash: string;
  /** The sender, and the envelope as hex: what the pending pool keeps. */
  from: string;
  raw: string;
  bytes: Buffer;
  callDataBytes: number;
  sender: string;
  nonce: number;
  /** Ends the sender's turn, taken for the prechecks; submitChecked ends it once a node has accepted or refused. */
  endTurn: () => void;
}

/**
 * How long a transaction whose nonce is ahead of its sender's next one waits for the ones before it: a burst's
 * requests, sent back to back on several connections, can arrive out of order.
 */
const GAP_WAIT_MS = 1_000;
const GAP_POLL_MS = 50;

/**
 * Mirror: GET /api/v1/network/fees (cached) and /api/v1/accounts/{sender}; nothing is spent when a check fails.
 * Passed, the transaction holds its sender's turn: the caller submits it with submitChecked.
 */
export async function precheckRaw(rawParam: unknown, env: MethodEnv): Promise<Checked> {
  const raw = data(rawParam, 0);
  if (!env.consensus) throw new GatewayError('WRITES_NOT_CONFIGURED');
  checkSize((raw.length - 2) / 2);
  const tx = parseSignedTransaction(raw);
  checkDataSize(tx);
  checkShape(tx, env.chainId, env.ledger.maxGas);
  const sender = tx.from!.toLowerCase();
  const deadline = Date.now() + GAP_WAIT_MS;
  for (;;) {
    const endTurn = await env.senders.locks.acquire(sender);
    try {
      await checkAgainstNetwork(tx, env.reads, await env.senders.pending.of(sender));
      const checked = { hash: tx.hash!.toLowerCase(), from: tx.from!, raw, bytes: Buffer.from(raw.slice(2), 'hex'), callDataBytes: (tx.data.length - 2) / 2 };
      return { ...checked, sender, nonce: tx.nonce, endTurn };
    } catch (err) {
      endTurn();
      if (!(err instanceof GatewayError) || err.errorName !== 'NONCE_TOO_HIGH' || Date.now() >= deadline) throw err;
    }
    await sleep(GAP_POLL_MS);
  }
}

/**
 * Consensus: the EthereumTransaction (and the file service's transactions where needed), each followed by its record,
 * what it cost the operator, which settles the write's hbar reservation. Refused by the hbar limits, a write has cost
 * nothing; admitted, it holds its largest fee until settled.
 */
export async function submitChecked(checked: Checked, env: MethodEnv, onAccepted?: () => void): Promise<Submission> {
  const { sender, nonce, endTurn } = checked;
  const cost: SubmissionCost = { tinybar: 0, complete: true };
  let reservation: HbarReservation | undefined;
  try {
    reservation = await env.hbar?.reserve(env.ctx.key, env.ledger.maxFeeTinybar * transactionsNeeded(checked.callDataBytes, env.ledger.jumboTransactions));
    // Pending from before a node can accept it, so the sender's next transaction (let in once this one is accepted)
    // is checked against it. In the txpool until the consensus receipt: then it has run, one way or the other.
    await Promise.all([env.senders.pending.add(sender, nonce), env.pending.add(checked.from, checked.raw)]);
    return await env.consensus!.submitEthereum(checked.bytes, cost, () => {
      endTurn();
      onAccepted?.();
    });
  } catch (err) {
    // Should a refused transaction have used its nonce after all, the mirror node's account nonce shows it shortly.
    await env.senders.pending.remove(sender, nonce);
    throw err;
  } finally {
    endTurn();
    await env.pending.remove(checked.from, checked.raw);
    await reservation?.settle(cost.complete ? cost.tinybar : reservation.tinybar);
  }
}

/** Once the mirror node shows the transaction, its account nonce counts it: it is no longer pending. */
export function forgetSubmitted(checked: Checked, env: MethodEnv): Promise<void> {
  return env.senders.pending.remove(checked.sender, checked.nonce);
}
