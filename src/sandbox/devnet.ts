/** One EVM devnet: a real EVM answering JSON-RPC over HTTP with its network's chain id, mining every transaction. */
import { PREFUNDED_WEIBAR, sandboxAccounts } from './accounts.js';
import { EvmNode } from './evm.js';
import { buildEvmHistory } from './history/evm.js';
import { serveJsonRpc } from './rpcServer.js';

export interface Devnet {
  url: string;
  evm: EvmNode;
  close(): Promise<void>;
}

/** `history`: deploy the sandboxes' ERC-20 with its transfers and a revert before answering (default false). */
export async function startDevnet(opts: { chainId: number; host?: string; port?: number; history?: boolean }): Promise<Devnet> {
  const evm = await EvmNode.start({
    chainId: opts.chainId,
    automine: true,
    accounts: sandboxAccounts().map((a) => ({ privateKey: a.privateKey, balance: PREFUNDED_WEIBAR })),
  });
  if (opts.history) await buildEvmHistory(evm, opts.chainId);
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
