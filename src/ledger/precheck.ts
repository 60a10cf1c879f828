/**
 * Checks a signed Ethereum transaction before anything is spent on it: shape, chain id, size, gas limit bounds,
 * gas price against the network fee, and the sender's nonce and balance on the mirror node.
 */
import { Transaction } from 'ethers/transaction';
import { toQuantity } from 'ethers/utils';
import { GatewayError, hidingCause } from '../errors.js';
import { intrinsicGas, tinybarToWeibar } from './convert.js';
import type { LedgerReads } from './reads.js';
import { nextNonce } from './senderOrder.js';

/**
 * Largest signed transaction accepted: the official relay's SEND_RAW_TRANSACTION_SIZE_LIMIT, which is also the
 * consensus node's jumbo limit (jumboTransactions.maxTxnSize, HIP-1086).
 */
export const MAX_TRANSACTION_BYTES = 133_120;
/** Largest call data accepted: the official relay's CALL_DATA_SIZE_LIMIT and jumboTransactions.ethereumMaxCallDataSize. */
export const MAX_CALL_DATA_BYTES = 131_072;
/** EIP-3860's limit on a creation's init code (twice EIP-170's 24,576-byte code limit), as the official relay checks it. */
export const MAX_INITCODE_BYTES = 49_152;

export function parseSignedTransaction(raw: string): Transaction {
  let tx: Transaction;
  try {
    tx = Transaction.from(raw);
  } catch (err) {
    throw new GatewayError('INVALID_PARAMS', `not a signed Ethereum transaction: ${(err as Error).message.split(' (')[0]}`);
  }
  if (!tx.signature || !tx.from) throw new GatewayError('INVALID_PARAMS', 'the transaction is not signed');
  return tx;
}

/** The price per gas the sender offers, in weibar. */
function offeredPrice(tx: Transaction): bigint {
  return tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
}

/** Runs before parsing: decoding a signed transaction costs time in proportion to its size. */
export function checkSize(rawBytes: number): void {
  if (rawBytes > MAX_TRANSACTION_BYTES) {
    throw new GatewayError('TRANSACTION_TOO_LARGE', `transaction size ${rawBytes}, transaction limit ${MAX_TRANSACTION_BYTES}`);
  }
}

/**
 * Call data within the consensus node's limit however it arrives, inline or through the file service; a creation's
 * within EIP-3860's init code limit, which the EVM would otherwise refuse only after the fees are paid.
 */
export function checkDataSize(tx: Transaction): void {
  const bytes = (tx.data.length - 2) / 2;
  if (bytes > MAX_CALL_DATA_BYTES) {
    throw new GatewayError('CALL_DATA_TOO_LARGE', `call data size ${bytes}, call data size limit ${MAX_CALL_DATA_BYTES}`);
  }
  if (tx.to === null && bytes > MAX_INITCODE_BYTES) {
    throw new GatewayError('INITCODE_TOO_LARGE', `initcode size ${bytes}, initcode size limit ${MAX_INITCODE_BYTES}`);
  }
}

/** Checks that need no network: chain id, gas limit bounds. */
export function checkShape(tx: Transaction, chainId: number, maxGas: number): void {
  // Chain id 0 is a pre-EIP-155 legacy transaction, which the ledger accepts (deterministic deployments use it).
  if (tx.chainId !== 0n && tx.chainId !== BigInt(chainId)) {
    throw new GatewayError('WRONG_CHAIN_ID', [toQuantity(tx.chainId), toQuantity(chainId)]);
  }
  if (tx.gasLimit > BigInt(maxGas)) throw new GatewayError('GAS_LIMIT_TOO_HIGH', [String(tx.gasLimit), String(maxGas)]);
  const intrinsic = intrinsicGas(tx.data, tx.to === null, tx.accessList ?? []);
  if (tx.gasLimit < intrinsic) throw new GatewayError('GAS_LIMIT_TOO_LOW', [String(tx.gasLimit), String(intrinsic)]);
}

/**
 * Checks against the network: gas price, then the sender's account (one mirror-node lookup each, in parallel). The
 * nonce expected is the account's past the sender's `pending` ones (submitted, not yet on the mirror node).
 */
export async function checkAgainstNetwork(tx: Transaction, reads: LedgerReads, pending: number[] = []): Promise<void> {
  const [priceTinybar, account] = await Promise.all([reads.gasPriceTinybar(), reads.account(tx.from!.toLowerCase())]);
  const networkPrice = tinybarToWeibar(priceTinybar);
  const offered = offeredPrice(tx);
  if (offered < networkPrice) throw new GatewayError('GAS_PRICE_TOO_LOW', [String(offered), String(networkPrice)]);
  if (!account) throw new GatewayError('UNKNOWN_SENDER', tx.from!);
  const nonce = BigInt(nextNonce(Number(account.ethereum_nonce ?? 0), pending));
  if (BigInt(tx.nonce) < nonce) throw new GatewayError('NONCE_TOO_LOW', [String(tx.nonce), String(nonce)]);
  // The ledger has no mempool: a nonce gap would be rejected by consensus after the fee is paid.
  if (BigInt(tx.nonce) > nonce) throw new GatewayError('NONCE_TOO_HIGH', [String(tx.nonce), String(nonce)]);
  const balance = tinybarToWeibar(account.balance?.balance ?? 0);
  const cost = tx.value + tx.gasLimit * networkPrice;
  if (balance < cost) throw hidingCause('INSUFFICIENT_FUNDS', `balance ${balance} weibar, value plus gas costs ${cost}`);
}
