import { fixedBytes } from '../ledger/convert.js';
import { address, blockNumberOrTagOrHash, bytesMax32, positional } from './params.js';
import { stateTimestamp } from './shared.js';
import type { MethodEnv } from './types.js';

/** Mirror: GET /api/v1/contracts/{address}/state?slot={slot}[&timestamp=lte:{block end}]; an unset slot is zero. */
export async function eth_getStorageAt(params: unknown[], env: MethodEnv): Promise<string> {
  const [addr, slotParam, ref] = positional(params, 2, 3);
  const who = address(addr, 0);
  const slot = fixedBytes(bytesMax32(slotParam, 1).toString(16), 32);
  const at = await stateTimestamp(env, blockNumberOrTagOrHash(ref, 2));
  const body = await env.reads.mirror.get<{ state: Array<{ value: string }> }>(
    `/api/v1/contracts/${who}/state?slot=${slot}${at === undefined ? '' : `&timestamp=lte:${at}`}`,
  );
  return fixedBytes(body?.state?.[0]?.value, 32);
}
