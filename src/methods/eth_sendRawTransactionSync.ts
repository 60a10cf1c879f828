import { pollUntil, syncTimeout, syncWaitMs } from '../rpc/sendSync.js';
import { eth_getTransactionReceipt } from './eth_getTransactionReceipt.js';
import { positional } from './params.js';
import { forgetSubmitted, precheckRaw, submitChecked } from './submit.js';
import type { MethodEnv } from './types.js';

/**
 * EIP-7966: eth_sendRawTransaction (prechecks, hbar reservation, submission), then the receipt, within the wait the
 * call asks for (relay.sendSyncDefaultMs when it names none, at most relay.sendSyncMaxMs). Consensus: as
 * eth_sendRawTransaction. Mirror: the prechecks' reads,
 * then eth_getTransactionReceipt's until the receipt is there. When the wait runs out after a node accepted the
 * transaction, the answer is error 4 with the hash: the transaction still lands, and the client can poll for it.
 */
export async function eth_sendRawTransactionSync(params: unknown[], env: MethodEnv) {
  const [rawParam, timeoutParam] = positional(params, 1, 2);
  const waitMs = syncWaitMs(timeoutParam, env.sendSync);
  const deadline = Date.now() + waitMs;
  const checked = await precheckRaw(rawParam, env);
  const { hash } = checked;
  let accepted!: () => void;
  const acceptance = new Promise<void>((resolve) => (accepted = resolve));
  // Past the wait, the submission goes on (and settles its hbar reservation) without anyone waiting for it.
  const submitted = submitChecked(checked, env, accepted);
  // Past the deadline with the transaction accepted, the wait is over; a refusal still answers as a refusal.
  const late = acceptance.then(() => new Promise<'late'>((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()), 'late').unref()));
  if ((await Promise.race([submitted, late])) === 'late') {
    submitted.catch(() => undefined);
    throw syncTimeout(hash, waitMs);
  }
  const receipt = await pollUntil(() => eth_getTransactionReceipt([hash], env), deadline);
  if (!receipt) throw syncTimeout(hash, waitMs);
  await forgetSubmitted(checked, env);
  return receipt;
}
