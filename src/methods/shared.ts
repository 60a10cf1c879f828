/** Lookups several methods share: a block as Ethereum shows it, a block's transaction by index or hash, the gas price. */
import { partiesOf, type Parties } from '../ledger/addresses.js';
import { blockGasLimit } from '../ledger/blockGasLimit.js';
import { standaloneTx, type BlockTx } from '../ledger/blocks.js';
import { tinybarToWeibar, timestampSeconds, toHash32 } from '../ledger/convert.js';
import { blockContext, formatBlock, formatBlockTransaction, type BlockContext } from '../ledger/format.js';
import { executedResults, priceAtEnd, type BlockRef, type PriceBy, type ContractResult, type MirrorBlock, type MirrorLog } from '../ledger/reads.js';
import type { MethodEnv } from './types.js';

export async function gasPriceWeibar(env: MethodEnv): Promise<bigint> {
  return tinybarToWeibar(await env.reads.gasPriceTinybar());
}

/** The gas price a block's transactions paid: the fee schedule in force at the block's end (`consensusTo`). */
export async function blockGasPriceWeibar(env: MethodEnv, consensusTo: string): Promise<bigint> {
  return tinybarToWeibar(await env.reads.gasPriceTinybarAt(consensusTo));
}

/** A contract result's sender and recipient; a synthetic transaction has none to look up. */
export function partiesOfTx(env: MethodEnv, tx: BlockTx): Promise<Parties | null> {
  return tx.result ? partiesOf(env.reads, tx.result) : Promise.resolve(null);
}

/**
 * A block as Ethereum shows it. `rows`, its contract results when they were read beside the block (earlyBlockRows),
 * also start the look-ups of their senders and recipients, which are kept: the block's logs and these then take one
 * mirror round trip together.
 */
export async function blockObject(env: MethodEnv, block: MirrorBlock | null, full: boolean, rows?: Promise<ContractResult[]>) {
  if (!block) return null;
  if (full && rows) void rows.then((rs) => Promise.all(executedResults(rs).map((r) => partiesOf(env.reads, r)))).catch(() => undefined);
  const [contents, price] = await Promise.all([env.reads.blockContents(block, rows), blockGasPriceWeibar(env, block.timestamp.to)]);
  const parties = full ? await Promise.all(contents.txs.map((tx) => partiesOfTx(env, tx))) : [];
  return formatBlock(block, contents, parties, full, { gasPriceWeibar: price, gasLimit: blockGasLimit(block.hapi_version), chainId: env.chainId });
}

export async function transactionAt(env: MethodEnv, block: MirrorBlock | null, index: number) {
  if (!block) return null;
  const tx = (await env.reads.blockContents(block)).txs.find((t) => t.index === index);
  if (!tx) return null;
  const [parties, price] = await Promise.all([partiesOfTx(env, tx), blockGasPriceWeibar(env, block.timestamp.to)]);
  return formatBlockTransaction(tx, parties, blockContext(block), { gasPriceWeibar: price, chainId: env.chainId }, 'by-index');
}

/** The block a contract result is in, from the (cached) block so timestamps agree with eth_getBlock*. */
function resultBlockContext(r: ContractResult, block: MirrorBlock | null): BlockContext {
  if (block) return blockContext(block);
  return { number: r.block_number ?? 0, hash: toHash32(r.block_hash ?? ''), timestamp: timestampSeconds(r.timestamp) };
}

/**
 * A transaction by hash, as a transaction of its block: a contract result, or else the synthetic transaction whose
 * logs carry that hash, with the gas price its block paid. Null when the mirror node has neither. Cold, two mirror
 * round trips: the result beside the transaction's logs, then its block, the block's results and the parties.
 */
export async function locateTransaction(env: MethodEnv, hash: string): Promise<{ tx: BlockTx; block: BlockContext; price: bigint } | null> {
  const logs = env.reads.transactionLogs(hash);
  logs.catch(() => undefined);
  const result = await env.reads.contractResult(hash);
  if (result) partiesOf(env.reads, result).catch(() => undefined);
  const first = result ? undefined : (await logs)[0];
  const number = result?.block_number ?? first?.block_number;
  if (number === null || number === undefined) return null;
  const found = await inBlock(env, number, hash, logs, result?.timestamp ?? first?.timestamp);
  if (result) return { tx: found.tx ?? standaloneTx(result), block: resultBlockContext(result, found.block), price: found.price ?? (await blockGasPriceWeibar(env, result.timestamp)) };
  return found.block && found.tx && found.price !== undefined ? { tx: found.tx, block: blockContext(found.block), price: found.price } : null;
}

/**
 * Transaction `hash` in block `number` (undefined when the block does not list it), and the gas price the block
 * paid (undefined without the block). Unless the block's contents are kept, the transaction is found from the
 * block's contract results and its own logs, read beside the block; the price is the current one where that was in
 * force since `since`, the transaction's consensus time, else the one in force by a bound the block ended by where
 * nothing changed between its end and that bound: two round trips in all, a third only for the price at the block's
 * end when a change fell in between.
 */
async function inBlock(env: MethodEnv, number: number, hash: string, logs: Promise<MirrorLog[]>, since: string | undefined) {
  const rows = env.reads.earlyBlockRows({ number }, true);
  let current: Promise<bigint | undefined> | undefined;
  let near: Promise<PriceBy | undefined> | undefined;
  if (since !== undefined) {
    // Where the current price was not in force since then, the one in force just after, read beside the block too:
    // at once when the current one is read now as well (at most once a block), else only if it is needed. Failing,
    // the price at the block's end is read after the block, as without it.
    const read = !env.reads.knowsPriceSince(number);
    current = env.reads.gasPriceTinybarSince(number, since);
    near = (read ? env.reads.gasPriceTinybarBy(since) : current.then((tinybar) => (tinybar === undefined ? env.reads.gasPriceTinybarBy(since) : undefined))).catch(() => undefined);
  }
  const block = await env.reads.blockByNumber(number);
  if (!block) return { block };
  const [tx, tinybar] = await Promise.all([
    rows ? logs.then((own) => env.reads.blockTransaction(rows, own, hash)) : env.reads.blockContents(block).then((c) => c.txs.find((t) => t.hash === toHash32(hash))),
    (async () => (await current) ?? priceAtEnd(await near, block.timestamp.to) ?? env.reads.gasPriceTinybarAt(block.timestamp.to))(),
  ]);
  return { block, tx, price: tinybarToWeibar(tinybar) };
}

/**
 * The consensus timestamp a state read refers to, or undefined for the current state. Head tags, and numbers at or
 * past the newest block, read the current state, which needs no block lookup.
 */
export async function stateTimestamp(env: MethodEnv, ref: BlockRef): Promise<string | undefined> {
  if ('tag' in ref && ref.tag !== 'earliest') return undefined;
  // The block is read beside the head, not after it: one mirror round trip instead of two when neither is kept.
  const block = env.reads.requireBlock(ref);
  block.catch(() => undefined);
  if ('number' in ref && ref.number >= (await env.reads.latestBlock()).number) return undefined;
  return (await block).timestamp.to;
}

/** A transaction by hash as eth_getTransactionByHash shows it; null when the mirror node has none. */
export async function transactionByHash(env: MethodEnv, hash: string) {
  const found = await locateTransaction(env, hash);
  if (!found) return null;
  return formatBlockTransaction(found.tx, await partiesOfTx(env, found.tx), found.block, { gasPriceWeibar: found.price, chainId: env.chainId }, 'by-hash');
}
