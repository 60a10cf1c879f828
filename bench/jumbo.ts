/**
 * The jumbo-transaction section (`BENCH_ONLY=jumbo npm run bench`): a 40 KiB contract deployment through the ledger
 * relay, as one jumbo EthereumTransaction (HIP-1086, ledger.jumboTransactions true) and through the file service
 * (false), against the sandbox's consensus node with a record file per transaction. Per deployment: the ledger
 * transactions it took, the fees the operator paid (its balance before and after), the gas the deployment used (the
 * sender pays it, at the network's gas price, the same either way: HIP-1086 prices the extra bytes as call-data gas),
 * and the time eth_sendRawTransaction took. Deployments of the two kinds alternate; figures are medians with their range.
 */
import { Wallet } from 'ethers';
import { loadConfig } from '../src/config/load.js';
import { createLedgerRelay, type LedgerRelay } from '../src/relay/ledgerRelay.js';
import type { CallContext } from '../src/rpc/answer.js';
import { plainResult } from '../src/rpc/jsonrpc.js';
import { deploymentOfSize } from '../packages/sandbox/src/initcode.js';
import { startLedgerSandbox, type LedgerSandbox } from '../packages/sandbox/src/index.js';
import { fmt, median } from './harness.js';

const CHAIN_ID = 298;
const DEPLOYMENT_BYTES = 40 * 1024;
const DEPLOYMENTS = Number(process.env.BENCH_JUMBO_DEPLOYMENTS ?? 5);
const ctx = { requestId: 'bench' } as CallContext;

interface Deployment {
  transactions: number;
  operatorFeeTinybar: number;
  gasUsed: number;
  ms: number;
}

export interface JumboFigures {
  deploymentBytes: number;
  deployments: number;
  jumbo: Summary;
  fileService: Summary;
}

interface Summary {
  transactions: number;
  transactionNames: Record<string, number>;
  operatorFeeTinybar: number;
  gasUsed: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
}

async function result(relay: LedgerRelay, method: string, params: unknown[]): Promise<any> {
  const [outcome] = await relay.handle([{ id: '1', method, params }], ctx);
  if ('error' in outcome) throw new Error(`${method}: ${outcome.error.code} ${outcome.error.message}`);
  return plainResult(outcome.result);
}

class Deployer {
  private readonly relay: LedgerRelay;
  names: Record<string, number> = {};

  constructor(
    private readonly sandbox: LedgerSandbox,
    private readonly wallet: Wallet,
    jumboTransactions: boolean,
  ) {
    this.relay = createLedgerRelay({
      chainId: CHAIN_ID,
      ledger: {
        mirrorUrl: sandbox.mirrorUrl,
        consensus: sandbox.consensus,
        operatorId: sandbox.operator.accountId,
        operatorKey: sandbox.operator.privateKey,
        maxGas: 15_000_000,
        maxFeeTinybar: 2_000_000_000,
        jumboTransactions,
      },
      // The defaults, but no reuse of `latest` answers: each deployment reads its own nonce.
      relay: { ...loadConfig({ env: {} }).relay, latestCacheMs: 0 },
    });
  }

  async deploy(): Promise<Deployment> {
    const [price, nonce] = await Promise.all([result(this.relay, 'eth_gasPrice', []), result(this.relay, 'eth_getTransactionCount', [this.wallet.address, 'latest'])]);
    const raw = await this.wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce: Number(nonce),
      gasLimit: 2_000_000n,
      maxFeePerGas: BigInt(price),
      maxPriorityFeePerGas: 0n,
      data: deploymentOfSize(DEPLOYMENT_BYTES),
    });
    const chain = this.sandbox.chain;
    const before = chain.transactions().length;
    const operator0 = await this.operatorBalance();
    const started = performance.now();
    const hash = await result(this.relay, 'eth_sendRawTransaction', [raw]);
    const ms = performance.now() - started;
    const added = chain.transactions().slice(before);
    for (const tx of added) {
      if (tx.result !== 'SUCCESS') throw new Error(`${tx.name} ended ${tx.result}`);
      this.names[tx.name] = (this.names[tx.name] ?? 0) + 1;
    }
    const receipt = await result(this.relay, 'eth_getTransactionReceipt', [hash]);
    return { transactions: added.length, operatorFeeTinybar: Number(operator0 - (await this.operatorBalance())), gasUsed: Number(receipt.gasUsed), ms };
  }

  close(): Promise<void> {
    return this.relay.close();
  }

  private operatorBalance(): Promise<bigint> {
    return this.sandbox.chain.balanceTinybar(this.sandbox.chain.account(this.sandbox.operator.accountId)!);
  }
}

function summary(runs: Deployment[], names: Record<string, number>): Summary {
  const per = (n: number) => Math.round(n / runs.length);
  return {
    transactions: median(runs.map((r) => r.transactions)),
    transactionNames: Object.fromEntries(Object.entries(names).map(([name, n]) => [name, per(n)])),
    operatorFeeTinybar: median(runs.map((r) => r.operatorFeeTinybar)),
    gasUsed: median(runs.map((r) => r.gasUsed)),
    medianMs: median(runs.map((r) => r.ms)),
    minMs: Math.min(...runs.map((r) => r.ms)),
    maxMs: Math.max(...runs.map((r) => r.ms)),
  };
}

export async function jumboDeployments(): Promise<JumboFigures> {
  const sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
  const [jumbo, files] = [true, false].map((on, i) => new Deployer(sandbox, new Wallet(sandbox.accounts[i].privateKey), on));
  try {
    // Warm-up: the first write loads the SDK and opens the consensus client.
    await jumbo.deploy();
    await files.deploy();
    jumbo.names = {};
    files.names = {};
    const runs: Record<'jumbo' | 'files', Deployment[]> = { jumbo: [], files: [] };
    for (let i = 0; i < DEPLOYMENTS; i++) {
      runs.jumbo.push(await jumbo.deploy());
      runs.files.push(await files.deploy());
    }
    return { deploymentBytes: DEPLOYMENT_BYTES, deployments: DEPLOYMENTS, jumbo: summary(runs.jumbo, jumbo.names), fileService: summary(runs.files, files.names) };
  } finally {
    await Promise.all([jumbo.close(), files.close()]);
    await sandbox.close();
  }
}

export function describeJumbo(f: JumboFigures): string {
  const hbar = (tinybar: number) => `${fmt(tinybar / 1e8, 4)} hbar`;
  const line = (name: string, s: Summary) =>
    `  ${name}: ${s.transactions} ledger transaction(s) (${Object.entries(s.transactionNames).map(([n, c]) => `${c} ${n}`).join(', ')}), ` +
    `operator paid ${hbar(s.operatorFeeTinybar)}, ${fmt(s.gasUsed)} gas used, ` +
    `${fmt(s.medianMs, 1)} ms median (${fmt(s.minMs, 1)}-${fmt(s.maxMs, 1)})`;
  return [
    `${f.deploymentBytes / 1024} KiB contract deployment through the ledger relay, ${f.deployments} of each, alternating (sandbox, a record file per transaction):`,
    line('jumbo EthereumTransaction', f.jumbo),
    line('file service', f.fileService),
    `  file service against jumbo: ${fmt(f.fileService.transactions / f.jumbo.transactions, 0)}x the transactions, ` +
      `${fmt(f.fileService.operatorFeeTinybar / f.jumbo.operatorFeeTinybar, 0)}x the operator's fees, ${fmt(f.fileService.medianMs / f.jumbo.medianMs, 1)}x the time`,
  ].join('\n');
}
