import { address, blockNumberOrTagOrHash, positional } from './params.js';
import { stateTimestamp } from './shared.js';
import type { MethodEnv } from './types.js';

/** Mirror: GET /api/v1/contracts/{address} (runtime_bytecode); before the contract's creation, or no contract, is 0x. */
export async function eth_getCode(params: unknown[], env: MethodEnv): Promise<string> {
  const [addr, ref] = positional(params, 1, 2);
  const who = address(addr, 'address');
  const at = await stateTimestamp(env, blockNumberOrTagOrHash(ref));
  const contract = await env.reads.mirror.get<{ runtime_bytecode: string | null; created_timestamp: string | null }>(`/api/v1/contracts/${who}`);
  if (!contract?.runtime_bytecode || contract.runtime_bytecode === '0x') return '0x';
  if (at !== undefined && contract.created_timestamp && Number(contract.created_timestamp) > Number(at)) return '0x';
  return contract.runtime_bytecode.toLowerCase();
}
