/** The ledger relay's method registry and dispatcher: one module per method, looked up by name. */
import { GatewayError, isGatewayError } from '../errors.js';
import type { RpcCall, RpcOutcome } from '../rpc/jsonrpc.js';
import { toErrorObject } from '../rpc/jsonrpc.js';
import { eth_accounts } from './eth_accounts.js';
import { eth_blockNumber } from './eth_blockNumber.js';
import { eth_call } from './eth_call.js';
import { eth_chainId } from './eth_chainId.js';
import { eth_estimateGas } from './eth_estimateGas.js';
import { eth_feeHistory } from './eth_feeHistory.js';
import { eth_gasPrice } from './eth_gasPrice.js';
import { eth_getBalance } from './eth_getBalance.js';
import { eth_getBlockByHash } from './eth_getBlockByHash.js';
import { eth_getBlockByNumber } from './eth_getBlockByNumber.js';
import { eth_getBlockTransactionCountByHash } from './eth_getBlockTransactionCountByHash.js';
import { eth_getBlockTransactionCountByNumber } from './eth_getBlockTransactionCountByNumber.js';
import { eth_getCode } from './eth_getCode.js';
import { eth_getLogs } from './eth_getLogs.js';
import { eth_getStorageAt } from './eth_getStorageAt.js';
import { eth_getTransactionByBlockHashAndIndex } from './eth_getTransactionByBlockHashAndIndex.js';
import { eth_getTransactionByBlockNumberAndIndex } from './eth_getTransactionByBlockNumberAndIndex.js';
import { eth_getTransactionByHash } from './eth_getTransactionByHash.js';
import { eth_getTransactionCount } from './eth_getTransactionCount.js';
import { eth_getTransactionReceipt } from './eth_getTransactionReceipt.js';
import { eth_maxPriorityFeePerGas } from './eth_maxPriorityFeePerGas.js';
import { eth_mining } from './eth_mining.js';
import { eth_sendRawTransaction } from './eth_sendRawTransaction.js';
import { eth_syncing } from './eth_syncing.js';
import { net_listening } from './net_listening.js';
import { net_version } from './net_version.js';
import { web3_clientVersion } from './web3_clientVersion.js';
import type { Method, MethodEnv } from './types.js';

export const METHODS: Readonly<Record<string, Method>> = Object.freeze({
  eth_accounts,
  eth_blockNumber,
  eth_call,
  eth_chainId,
  eth_estimateGas,
  eth_feeHistory,
  eth_gasPrice,
  eth_getBalance,
  eth_getBlockByHash,
  eth_getBlockByNumber,
  eth_getBlockTransactionCountByHash,
  eth_getBlockTransactionCountByNumber,
  eth_getCode,
  eth_getLogs,
  eth_getStorageAt,
  eth_getTransactionByBlockHashAndIndex,
  eth_getTransactionByBlockNumberAndIndex,
  eth_getTransactionByHash,
  eth_getTransactionCount,
  eth_getTransactionReceipt,
  eth_maxPriorityFeePerGas,
  eth_mining,
  eth_sendRawTransaction,
  eth_syncing,
  net_listening,
  net_version,
  web3_clientVersion,
});

/** Runs one call; every failure becomes a JSON-RPC error object, never a thrown exception. */
export async function dispatch(call: RpcCall, env: MethodEnv, onUnexpected: (err: unknown, method: string) => void): Promise<RpcOutcome> {
  const method = Object.prototype.hasOwnProperty.call(METHODS, call.method) ? METHODS[call.method] : undefined;
  try {
    if (!method) throw new GatewayError('UNSUPPORTED_METHOD', call.method);
    if (!Array.isArray(call.params)) throw new GatewayError('INVALID_PARAMS', 'params must be an array');
    return { result: await method(call.params, env) };
  } catch (err) {
    if (isGatewayError(err)) return { error: toErrorObject(err) };
    onUnexpected(err, call.method);
    return { error: toErrorObject(new GatewayError('INTERNAL')) };
  }
}
