import { pollUntil } from '../rpc/sendSync.js';
import { positional } from './params.js';
import { precheckRaw } from './submit.js';
import type { MethodEnv } from './types.js';

/**
 * Mirror: the prechecks' reads (src/methods/submit.ts); after the consensus receipt, GET
 * /api/v1/contracts/results/{hash} until the mirror node has it (bounded by relay.mirrorTotalMs), so the client's next
 * eth_getTransactionCount already sees the new nonce. Consensus: one EthereumTransaction through @hashgraph/sdk, paid
 * by the operator (FileCreate/FileAppend first on a network without jumbo transactions).
 */
export async function eth_sendRawTransaction(params: unknown[], env: MethodEnv): Promise<string> {
  const [rawParam] = positional(params, 1, 1);
  const { hash, bytes, consensus } = await precheckRaw(rawParam, env);
  await consensus.submitEthereum(bytes);
  await pollUntil(() => env.reads.contractResult(hash), Date.now() + env.mirrorTotalMs);
  return hash;
}
