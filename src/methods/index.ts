/** The ledger relay's method registry and dispatcher: one module per method, looked up by name. */
import { GatewayError, isGatewayError } from '../errors.js';
import type { RpcCall, RpcOutcome } from '../rpc/jsonrpc.js';
import { toErrorObject } from '../rpc/jsonrpc.js';
import { debug_getBadBlocks } from './debug_getBadBlocks.js';
import { debug_getRawBlock } from './debug_getRawBlock.js';
import { debug_getRawHeader } from './debug_getRawHeader.js';
import { debug_getRawReceipts } from './debug_getRawReceipts.js';
import { debug_getRawTransaction } from './debug_getRawTransaction.js';
import { debug_traceBlockByHash } from './debug_traceBlockByHash.js';
import { debug_traceBlockByNumber } from './debug_traceBlockByNumber.js';
import { debug_traceTransaction } from './debug_traceTransaction.js';
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
import { eth_getBlockReceipts } from './eth_getBlockReceipts.js';
import { eth_getBlockTransactionCountByHash } from './eth_getBlockTransactionCountByHash.js';
import { eth_getBlockTransactionCountByNumber } from './eth_getBlockTransactionCountByNumber.js';
import { eth_getCode } from './eth_getCode.js';
import { eth_getFilterChanges } from './eth_getFilterChanges.js';
import { eth_getFilterLogs } from './eth_getFilterLogs.js';
import { eth_getLogs } from './eth_getLogs.js';
import { eth_getStorageAt } from './eth_getStorageAt.js';
import { eth_getTransactionByBlockHashAndIndex } from './eth_getTransactionByBlockHashAndIndex.js';
import { eth_getTransactionByBlockNumberAndIndex } from './eth_getTransactionByBlockNumberAndIndex.js';
import { eth_getTransactionByHash } from './eth_getTransactionByHash.js';
import { eth_getTransactionCount } from './eth_getTransactionCount.js';
import { eth_getTransactionReceipt } from './eth_getTransactionReceipt.js';
import { eth_getUncleByBlockHashAndIndex } from './eth_getUncleByBlockHashAndIndex.js';
import { eth_getUncleByBlockNumberAndIndex } from './eth_getUncleByBlockNumberAndIndex.js';
import { eth_getUncleCountByBlockHash } from './eth_getUncleCountByBlockHash.js';
import { eth_getUncleCountByBlockNumber } from './eth_getUncleCountByBlockNumber.js';
import { eth_hashrate } from './eth_hashrate.js';
import { eth_maxPriorityFeePerGas } from './eth_maxPriorityFeePerGas.js';
import { eth_mining } from './eth_mining.js';
import { eth_newBlockFilter } from './eth_newBlockFilter.js';
import { eth_newFilter } from './eth_newFilter.js';
import { eth_newPendingTransactionFilter } from './eth_newPendingTransactionFilter.js';
import { eth_sendRawTransaction } from './eth_sendRawTransaction.js';
import { eth_sendRawTransactionSync } from './eth_sendRawTransactionSync.js';
import { eth_submitWork } from './eth_submitWork.js';
import { eth_syncing } from './eth_syncing.js';
import { eth_uninstallFilter } from './eth_uninstallFilter.js';
import { net_listening } from './net_listening.js';
import { net_version } from './net_version.js';
import { txpool_content } from './txpool_content.js';
import { txpool_contentFrom } from './txpool_contentFrom.js';
import { txpool_status } from './txpool_status.js';
import { web3_clientVersion } from './web3_clientVersion.js';
import { web3_sha3 } from './web3_sha3.js';
import { isRefusedMethod } from './refused.js';
import type { Method, MethodEnv } from './types.js';

export const METHODS: Readonly<Record<string, Method>> = Object.freeze({
  debug_getBadBlocks,
  debug_getRawBlock,
  debug_getRawHeader,
  debug_getRawReceipts,
  debug_getRawTransaction,
  debug_traceBlockByHash,
  debug_traceBlockByNumber,
  debug_traceTransaction,
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
  eth_getBlockReceipts,
  eth_getBlockTransactionCountByHash,
  eth_getBlockTransactionCountByNumber,
  eth_getCode,
  eth_getFilterChanges,
  eth_getFilterLogs,
  eth_getLogs,
  eth_getStorageAt,
  eth_getTransactionByBlockHashAndIndex,
  eth_getTransactionByBlockNumberAndIndex,
  eth_getTransactionByHash,
  eth_getTransactionCount,
  eth_getTransactionReceipt,
  eth_getUncleByBlockHashAndIndex,
  eth_getUncleByBlockNumberAndIndex,
  eth_getUncleCountByBlockHash,
  eth_getUncleCountByBlockNumber,
  eth_hashrate,
  eth_maxPriorityFeePerGas,
  eth_mining,
  eth_newBlockFilter,
  eth_newFilter,
  eth_newPendingTransactionFilter,
  eth_sendRawTransaction,
  eth_sendRawTransactionSync,
  eth_submitWork,
  eth_syncing,
  eth_uninstallFilter,
  net_listening,
  net_version,
  txpool_content,
  txpool_contentFrom,
  txpool_status,
  web3_clientVersion,
  web3_sha3,
});

/** Runs one call; every failure becomes a JSON-RPC error object, never a thrown exception. */
export async function dispatch(call: RpcCall, env: MethodEnv, onUnexpected: (err: unknown, method: string) => void): Promise<RpcOutcome> {
  const method = Object.prototype.hasOwnProperty.call(METHODS, call.method) ? METHODS[call.method] : undefined;
  try {
    if (!method && isRefusedMethod(call.method)) throw new GatewayError('REFUSED_METHOD');
    if (!method) throw new GatewayError('UNSUPPORTED_METHOD', call.method);
    if (!Array.isArray(call.params)) throw new GatewayError('INVALID_PARAMS', 'params must be an array');
    return { result: await method(call.params, env) };
  } catch (err) {
    if (isGatewayError(err)) return { error: toErrorObject(err) };
    onUnexpected(err, call.method);
    return { error: toErrorObject(new GatewayError('INTERNAL')) };
  }
}
