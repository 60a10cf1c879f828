import { GatewayError } from '../errors.js';
import { checkAgainstNetwork, checkShape, checkSize, parseSignedTransaction } from '../ledger/precheck.js';
import { data, positional } from './params.js';
import type { MethodEnv } from './types.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Mirror: GET /api/v1/network/fees (cached) and /api/v1/accounts/{sender} before submitting; after the consensus
 * receipt, GET /api/v1/contracts/results/{hash} until the mirror node has it (bounded by relay.mirrorTotalMs), so
 * the client's next eth_getTransactionCount already sees the new nonce. Consensus: EthereumTransaction (and
 * FileCreate/FileAppend for large call data) through @hashgraph/sdk, paid by the operator.
 */
export async function eth_sendRawTransaction(params: unknown[], env: MethodEnv): Promise<string> {
  const [rawParam] = positional(params, 1, 1);
  const raw = data(rawParam, 'signed transaction');
  if (!env.consensus) throw new GatewayError('WRITES_NOT_CONFIGURED');
  checkSize((raw.length - 2) / 2);
  const tx = parseSignedTransaction(raw);
  checkShape(tx, env.chainId, env.ledger.maxGas);
  await checkAgainstNetwork(tx, env.reads);
  // Pending from submission until the consensus receipt: then the transaction has run, one way or the other.
  const sender = tx.from!;
  await env.pending.add(sender, raw);
  try {
    await env.consensus.submitEthereum(Buffer.from(raw.slice(2), 'hex'));
  } finally {
    await env.pending.remove(sender, raw);
  }
  const hash = tx.hash!.toLowerCase();
  const deadline = Date.now() + env.mirrorTotalMs;
  for (let wait = 20; Date.now() < deadline; wait = Math.min(wait * 2, 500)) {
    if (await env.reads.contractResult(hash)) break;
    await sleep(Math.min(wait, Math.max(0, deadline - Date.now())));
  }
  return hash;
}
