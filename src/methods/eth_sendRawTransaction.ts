import { pollUntil } from '../rpc/sendSync.js';
import { positional } from './params.js';
import { forgetSubmitted, precheckRaw, submitChecked } from './submit.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: the prechecks' reads (src/methods/submit.ts); after the consensus receipt, GET
 * /api/v1/contracts/results/{hash} until the mirror node has it (bounded by relay.mirrorTotalMs), so the client's next
 * eth_getTransactionCount already sees the new nonce. Consensus: one EthereumTransaction through @hashgraph/sdk, paid
 * by the operator (FileCreate/FileAppend first on a network without jumbo transactions), each followed by its record
 * (what it cost the operator, which settles the write's hbar reservation).
 */
export async function eth_sendRawTransaction(params: unknown[], env: MethodEnv): Promise<string> {
  const [rawParam] = positional(params, 1, 1);
  const checked = await precheckRaw(rawParam, env);
  await submitChecked(checked, env);
  if (await pollUntil(() => env.reads.contractResult(checked.hash), Date.now() + env.mirrorTotalMs)) await forgetSubmitted(checked, env);
  return checked.hash;
}
