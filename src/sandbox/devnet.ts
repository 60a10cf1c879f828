/** One EVM devnet: a real EVM answering JSON-RPC over HTTP with its network's chain id, mining every transaction. */
import { PREFUNDED_WEIBAR, sandboxAccounts } from './accounts.js';
import { EvmNode } from './evm.js';
import { serveJsonRpc } from './rpcServer.js';

export interface Devnet {
  url: string;
  evm: EvmNode;
  close(): Promise<void>;
}

export async function startDevnet(opts: { chainId: number; host?: string; port?: number }): Promise<Devnet> {
  const evm = await EvmNode.start({
    chainId: opts.chainId,
    automine: true,
    accounts: sandboxAccounts().map((a) => ({ privateKey: a.privateKey, balance: PREFUNDED_WEIBAR })),
  });
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
