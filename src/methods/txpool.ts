/**
 * The pending pool as txpool_* shows it, in the official relay's shapes (its TxPoolImpl): each envelope decoded into
 * a transaction without a block, grouped by sender and nonce; nothing is ever queued.
 */
import { Transaction } from 'ethers/transaction';
import { toQuantity } from 'ethers/utils';

const ZERO_HASH = `0x${'0'.repeat(64)}`;

export type PoolTransaction = ReturnType<typeof poolTransaction>;

export function poolTransaction(raw: string) {
  const tx = Transaction.from(raw);
  const sig = tx.signature;
  return {
    blockHash: ZERO_HASH,
    blockNumber: null,
    transactionIndex: null,
    from: tx.from!,
    gas: toQuantity(tx.gasLimit),
    hash: tx.hash!,
    input: tx.data,
    nonce: toQuantity(tx.nonce),
    to: tx.to,
    value: toQuantity(tx.value),
    type: toQuantity(tx.type ?? 0),
    v: sig?.v ? toQuantity(sig.v) : null,
    r: sig?.r ?? null,
    s: sig?.s ?? null,
    ...(tx.chainId ? { chainId: toQuantity(tx.chainId) } : {}),
    ...(tx.gasPrice ? { gasPrice: toQuantity(tx.gasPrice) } : {}),
    ...(tx.maxFeePerGas ? { maxFeePerGas: toQuantity(tx.maxFeePerGas) } : {}),
    ...(tx.maxPriorityFeePerGas ? { maxPriorityFeePerGas: toQuantity(tx.maxPriorityFeePerGas) } : {}),
  };
}

export function byNonce(txs: PoolTransaction[]): Record<string, PoolTransaction> {
  return Object.fromEntries(txs.map((tx) => [String(Number(tx.nonce)), tx]));
}
