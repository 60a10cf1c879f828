import { blockGasLimit } from '../ledger/blockGasLimit.js';
import { toQuantity } from '../ledger/convert.js';
import type { MirrorBlock } from '../ledger/reads.js';
import { blockNumberOrTag, count, invalidParam, positional } from './params.js';
import { gasPriceWeibar } from './shared.js';
import type { MethodEnv } from './types.js';

/** One mirror-node page of blocks. */
export const MAX_FEE_HISTORY_BLOCKS = 100;

/**
 * Mirror: the newest block if a tag is given (cached), GET /api/v1/blocks?block.number=gte:A&block.number=lte:B,
 * and /api/v1/network/fees (cached). The ledger has one gas price and no tips, so rewards are zero.
 */
export async function eth_feeHistory(params: unknown[], env: MethodEnv) {
  const [countParam, newestParam, percentiles] = positional(params, 2, 3);
  const wanted = Math.min(count(countParam, 0), MAX_FEE_HISTORY_BLOCKS);
  if (percentiles !== undefined && (!Array.isArray(percentiles) || percentiles.some((p) => typeof p !== 'number' || p < 0 || p > 100))) {
    throw invalidParam(2, 'must be an array of reward percentiles, numbers from 0 to 100');
  }
  const newestRef = blockNumberOrTag(newestParam, 1);
  const latest = await env.reads.latestBlock();
  const newest = Math.min('number' in newestRef ? newestRef.number : newestRef.tag === 'earliest' ? 0 : latest.number, latest.number);
  const price = toQuantity(await gasPriceWeibar(env));
  if (wanted === 0) return { oldestBlock: toQuantity(newest), baseFeePerGas: [price], gasUsedRatio: [] };
  const oldest = Math.max(0, newest - wanted + 1);
  const body = await env.reads.mirror.get<{ blocks: MirrorBlock[] }>(
    `/api/v1/blocks?block.number=gte:${oldest}&block.number=lte:${newest}&limit=${MAX_FEE_HISTORY_BLOCKS}&order=asc`,
  );
  const blocks = body?.blocks ?? [];
  const first = blocks[0]?.number ?? oldest;
  return {
    oldestBlock: toQuantity(first),
    baseFeePerGas: Array.from({ length: blocks.length + 1 }, () => price),
    gasUsedRatio: blocks.map((b) => Math.min(1, (b.gas_used ?? 0) / blockGasLimit(b.hapi_version))),
    ...(Array.isArray(percentiles) ? { reward: blocks.map(() => percentiles.map(() => '0x0')) } : {}),
  };
}
