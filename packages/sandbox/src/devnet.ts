/**
 * One EVM devnet: a real EVM answering JSON-RPC over HTTP with its network's chain id, mining every transaction at
 * once and, given a block interval, an empty block whenever one passes without any, so `newHeads` subscribers and
 * block watchers see the chain move as on a real network.
 */
import { PREFUNDED_WEIBAR, sandboxAccounts } from './accounts.js';
import { EvmNode } from './evm.js';
import { buildEvmHistory } from './history/evm.js';
import { serveJsonRpc } from './rpcServer.js';

export interface Devnet {
  url: string;
  evm: EvmNode;
  close(): Promise<void>;
}

/**
 * `history`: deploy the sandboxes' ERC-20 with its transfers and a revert before answering (default false).
 * `blockIntervalMs`: mine a block this often as well (0 or absent: on transactions only).
 */
export async function startDevnet(opts: { chainId: number; host?: string; port?: number; history?: boolean; blockIntervalMs?: number }): Promise<Devnet> {
  const evm = await EvmNode.start({
    chainId: opts.chainId,
    automine: true,
    accounts: sandboxAccounts().map((a) => ({ privateKey: a.privateKey, balance: PREFUNDED_WEIBAR })),
  });
  if (opts.history) await buildEvmHistory(evm, opts.chainId);
  // After the history, so that it fills the same first blocks on every start.
  if (opts.blockIntervalMs) await evm.setIntervalMining(opts.blockIntervalMs);
  const http = await serveJsonRpc(evm, opts);
  return {
    url: http.url,
    evm,
    async close() {
      await http.close();
      await evm.close();
    },
  };
}
