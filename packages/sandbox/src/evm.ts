/**
 * A real EVM in-process: Hardhat's EDR behind a small EIP-1193 surface. Every sandbox chain (EVM devnets and the
 * ledger's EVM) runs on this, so what executes is the same engine Hardhat users test against.
 */
import {
  ContractDecoder,
  EdrContext,
  GENERIC_CHAIN_TYPE,
  MineOrdering,
  PRAGUE,
  genericChainProviderFactory,
  type Provider,
} from '@nomicfoundation/edr';
import { computeAddress } from 'ethers';

/** A JSON-RPC error from the EVM, carrying the code, message and data so callers can pass them on unchanged. */
export class EvmRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'EvmRpcError';
  }
}

export interface EvmNodeOptions {
  chainId: number;
  /** Mine a block for every transaction (default true). When false, blocks come from `evm_mine` only. */
  automine?: boolean;
  accounts?: Array<{ privateKey: string; balance: bigint }>;
  /** Default 30M, as on Ethereum mainnet. */
  blockGasLimit?: bigint;
  /** Extra genesis balances for addresses whose keys the sandbox does not hold (for example the ledger operator). */
  balances?: Array<{ address: string; balance: bigint }>;
}

// EDR wants exactly one context per process; every node shares it.
let context: Promise<EdrContext> | undefined;
function edrContext(): Promise<EdrContext> {
  context ??= (async () => {
    const ctx = new EdrContext();
    await ctx.registerProviderFactory(GENERIC_CHAIN_TYPE, genericChainProviderFactory());
    return ctx;
  })();
  return context;
}

/**
 * EDR reports a revert as `{code: -32000, data: {data: "0x..."}}`; Ethereum nodes (geth, and what ethers and viem
 * decode) answer code 3, `execution reverted[: reason]`, with the revert data as a hex string.
 */
function asNodeError(error: { code: number; message: string; data?: unknown }): EvmRpcError {
  const revertData = (error.data as { data?: unknown } | undefined)?.data;
  if (typeof revertData !== 'string' || !/revert/i.test(error.message)) return new EvmRpcError(error.code, error.message, error.data);
  const reason = /reverted with reason string '(.*)'$/s.exec(error.message)?.[1];
  return new EvmRpcError(3, reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, revertData);
}

const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));

export class EvmNode {
  #provider: Provider | undefined;
  #nextId = 1;
  #intervalMs = 0;

  private constructor(
    provider: Provider,
    readonly chainId: number,
  ) {
    this.#provider = provider;
  }

  static async start(opts: EvmNodeOptions): Promise<EvmNode> {
    const ctx = await edrContext();
    const gasLimit = opts.blockGasLimit ?? 30_000_000n;
    const genesis = [
      ...(opts.accounts ?? []).map((a) => ({ address: computeAddress(a.privateKey), balance: a.balance })),
      ...(opts.balances ?? []),
    ].map((a) => ({ address: hexBytes(a.address), balance: a.balance }));
    const provider = await ctx.createProvider(
      GENERIC_CHAIN_TYPE,
      {
        allowBlocksWithSameTimestamp: true,
        allowUnlimitedContractSize: false,
        // An eth_call that reverts answers a JSON-RPC error with the revert data, as Ethereum nodes do.
        bailOnCallFailure: true,
        bailOnTransactionFailure: false,
        chainId: BigInt(opts.chainId),
        coinbase: hexBytes('0xc014ba5ec014ba5ec014ba5ec014ba5ec014ba5e'),
        defaultTransactionGasLimit: 30_000_000n,
        genesisState: genesis,
        hardfork: PRAGUE,
        // 1 gwei: ethers' and viem's default fee estimates (2 * base fee + 1 gwei tip) stay far below any balance.
        initialBaseFeePerGas: 1_000_000_000n,
        minGasPrice: 0n,
        mining: { autoMine: opts.automine ?? true, blockGasLimit: gasLimit, memPool: { order: MineOrdering.Fifo } },
        network: { genesisBlockGasLimit: gasLimit },
        networkId: BigInt(opts.chainId),
        observability: {},
        ownedAccounts: (opts.accounts ?? []).map((a) => a.privateKey),
        precompileOverrides: [],
      },
      { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
      { subscriptionCallback: () => {} },
      new ContractDecoder(),
    );
    return new EvmNode(provider, opts.chainId);
  }

  /** EIP-1193 request. Throws {@link EvmRpcError} on a JSON-RPC error. */
  async request(args: { method: string; params?: unknown[] }): Promise<unknown> {
    const provider = this.#provider;
    if (!provider) throw new EvmRpcError(-32603, 'EVM node is closed');
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.#nextId++, method: args.method, params: args.params ?? [] });
    const response = await provider.handleRequest(body);
    const parsed = typeof response.data === 'string' ? JSON.parse(response.data) : response.data;
    if (parsed.error) throw asNodeError(parsed.error);
    return parsed.result;
  }

  /**
   * Also mine a block every `ms` (an empty one when nothing is pending), besides any mined on a transaction, as a
   * chain with a block time does; 0 stops it.
   */
  async setIntervalMining(ms: number): Promise<void> {
    await this.request({ method: 'evm_setIntervalMining', params: [ms] });
    this.#intervalMs = ms;
  }

  /** Releases the provider; EDR frees its memory once nothing references it (its interval miner would). */
  async close(): Promise<void> {
    if (this.#intervalMs > 0) await this.setIntervalMining(0).catch(() => undefined);
    this.#provider = undefined;
  }
}
