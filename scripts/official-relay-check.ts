/**
 * Runs the official hiero JSON-RPC relay on the ledger sandbox and drives an ethers flow through it: deploy a
 * contract, call it, send value to it, send value to an account, read logs, receipts, blocks and transactions.
 * Any JSON-RPC error, or a mirror-node request the sandbox refused, fails the check: the sandbox must be a mirror
 * node that the official relay can run on.
 *
 * Not part of `npm test`: the official relay is built outside the project (see ../shared/differential/README.md).
 *   npx tsx scripts/official-relay-check.ts        # OFFICIAL_RELAY_DIR overrides /work/official-relay
 * Exits 0 on success, 1 on a failure, and 0 with a notice when no built relay is found.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { sandboxAccounts } from '../packages/sandbox/src/accounts.js';
import { startLedgerSandbox, type LedgerSandbox } from '../packages/sandbox/src/index.js';
import { counter } from '../test/e2e/counter.js';

const RELAY_DIR = process.env.OFFICIAL_RELAY_DIR ?? '/work/official-relay';
const CHAIN_ID = 296;
const TINYBAR = 10n ** 10n;
const START_TIMEOUT_MS = 60_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The official relay's environment for this sandbox, as `../shared/differential/README.md` gives it. */
function relayEnv(sandbox: LedgerSandbox, port: number): NodeJS.ProcessEnv {
  const mirrorOrigin = sandbox.mirrorUrl;
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    npm_package_version: '0.80.0-SNAPSHOT',
    CHAIN_ID: `0x${CHAIN_ID.toString(16)}`,
    HEDERA_NETWORK: JSON.stringify(sandbox.consensus),
    MIRROR_NODE_URL: mirrorOrigin,
    MIRROR_NODE_URL_WEB3: mirrorOrigin,
    OPERATOR_ID_MAIN: sandbox.operator.accountId,
    OPERATOR_KEY_MAIN: sandbox.operator.privateKey,
    OPERATOR_KEY_FORMAT: 'DER',
    RATE_LIMIT_DISABLED: 'true',
    // debug_traceTransaction reads the mirror node's contract actions and opcodes.
    DEBUG_API_ENABLED: 'true',
    SERVER_HOST: '127.0.0.1',
    SERVER_PORT: String(port),
  };
}

/**
 * The relay asks whether an address is a token or a schedule by reading it as `shard.realm.num`
 * (mirrorNodeClient.resolveEntityType) and treats any failure as "no". For an EVM address that id is not a valid
 * entity id, which the real mirror node refuses with 400 as the sandbox does; the relay logs that as an error.
 */
function isEntityProbe(line: string): boolean {
  const m = /path=(?:tokens|schedules)\/(\d+)\.(\d+)\.(\d+),.*status=400/.exec(line);
  return m !== null && m.slice(1).some((part) => part.length > 10);
}

interface RunningRelay {
  url: string;
  child: ChildProcess;
  /** Mirror-node answers the relay logged as failures (status >= 400 that it did not expect). */
  mirrorFailures: string[];
}

async function startRelay(sandbox: LedgerSandbox): Promise<RunningRelay> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/index.js'], { cwd: RELAY_DIR, env: relayEnv(sandbox, port), stdio: ['ignore', 'pipe', 'pipe'] });
  const mirrorFailures: string[] = [];
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the official relay did not start in ${START_TIMEOUT_MS} ms:\n${output.slice(-2000)}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output = (output + text).slice(-20_000);
      for (const line of text.split('\n')) {
        if (/Mirror node upstream failure|status=4\d\d|status=5\d\d/.test(line) && !/status=404/.test(line) && !isEntityProbe(line)) {
          mirrorFailures.push(line.replace(/\x1b\[[0-9;]*m/g, '').trim());
        }
      }
      if (text.includes('Relay started successfully')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the official relay exited with ${code}:\n${output.slice(-2000)}`));
    });
  });
  await ready;
  return { url: `http://127.0.0.1:${port}`, child, mirrorFailures };
}

type Step = [name: string, run: () => Promise<string>];

async function flow(provider: JsonRpcProvider, wallet: Wallet, recipient: string): Promise<Step[]> {
  const { abi, bytecode } = counter();
  let contract: Contract;
  let setHash = '';
  let deployBlock = 0;
  const signer = wallet.address.toLowerCase();
  const sameSender = (from: string | null | undefined, what: string) => {
    if (from?.toLowerCase() !== signer) throw new Error(`${what}: from is ${from}, the signer is ${signer}`);
  };
  return [
    ['eth_chainId', async () => `chain id ${(await provider.getNetwork()).chainId}`],
    [
      'deploy the contract',
      async () => {
        const deployed = await new ContractFactory(abi, bytecode, wallet).deploy();
        await deployed.waitForDeployment();
        const receipt = await deployed.deploymentTransaction()!.wait();
        if (receipt?.status !== 1) throw new Error(`deployment status ${receipt?.status}`);
        sameSender(receipt.from, 'deployment receipt');
        contract = deployed as unknown as Contract;
        deployBlock = receipt.blockNumber;
        return `at ${await deployed.getAddress()} in block ${receipt.blockNumber}`;
      },
    ],
    ['call a view', async () => `value() = ${await contract.value()}`],
    [
      'send value to the contract (payable set)',
      async () => {
        const tx = await contract.set(42n, { value: 5n * TINYBAR });
        const receipt = await tx.wait();
        if (receipt?.status !== 1) throw new Error(`status ${receipt?.status}`);
        setHash = tx.hash;
        const balance = await provider.getBalance(await contract.getAddress());
        if (balance !== 5n * TINYBAR) throw new Error(`contract balance ${balance}, expected ${5n * TINYBAR}`);
        return `value() = ${await contract.value()}, contract balance ${balance} wei`;
      },
    ],
    [
      'send value to an account',
      async () => {
        const receipt = await (await wallet.sendTransaction({ to: recipient, value: parseEther('1.5') })).wait();
        if (receipt?.status !== 1) throw new Error(`status ${receipt?.status}`);
        sameSender(receipt.from, 'transfer receipt');
        return `in block ${receipt.blockNumber}`;
      },
    ],
    [
      'eth_getTransactionByHash and eth_getTransactionReceipt',
      async () => {
        const [tx, receipt] = await Promise.all([provider.getTransaction(setHash), provider.getTransactionReceipt(setHash)]);
        if (!tx || !receipt) throw new Error('transaction or receipt not found');
        sameSender(tx.from, 'transaction');
        sameSender(receipt.from, 'receipt');
        if (tx.value !== 5n * TINYBAR) throw new Error(`value ${tx.value}, expected ${5n * TINYBAR}`);
        if (receipt.logs.length !== 1) throw new Error(`${receipt.logs.length} logs in the receipt`);
        return `from ${tx.from}, to ${tx.to}, value ${tx.value}, gasPrice ${tx.gasPrice}, ${receipt.logs.length} log`;
      },
    ],
    [
      'eth_getLogs',
      async () => {
        const logs = await provider.getLogs({ address: await contract.getAddress(), fromBlock: deployBlock, toBlock: 'latest' });
        const events = logs.map((l) => contract.interface.parseLog(l)?.name);
        if (!events.includes('Set')) throw new Error(`logs: ${JSON.stringify(events)}`);
        return `${logs.length} log(s): ${events.join(', ')}`;
      },
    ],
    [
      'eth_getBlockByNumber with transactions',
      async () => {
        const receipt = await provider.getTransactionReceipt(setHash);
        const block = await provider.getBlock(receipt!.blockNumber, true);
        if (!block?.prefetchedTransactions.some((t) => t.hash === setHash)) throw new Error('the block does not list the transaction');
        for (const t of block.prefetchedTransactions) sameSender(t.from, 'block transaction');
        return `block ${block.number}: ${block.prefetchedTransactions.length} transaction(s)`;
      },
    ],
    [
      'eth_estimateGas and eth_call',
      async () => {
        const gas = await contract.set.estimateGas(7n);
        return `set(7) estimates ${gas} gas; value() = ${await contract.value()}`;
      },
    ],
    [
      'a revert: eth_call gives the reason, a reverted transaction a failed receipt',
      async () => {
        const reason = await contract.fail.staticCall().then(
          () => 'no revert',
          (err: { reason?: string }) => err.reason ?? 'no reason',
        );
        if (reason !== 'Counter: always fails') throw new Error(`eth_call revert reason: ${reason}`);
        // fail() is pure, so ethers would only call it: send it as a plain transaction.
        const data = contract.interface.encodeFunctionData('fail');
        const tx = await wallet.sendTransaction({ to: await contract.getAddress(), data, gasLimit: 100_000 });
        const status = await tx.wait().then(
          (r: { status: number } | null) => r?.status,
          (err: { receipt?: { status: number } }) => err.receipt?.status,
        );
        if (status !== 0) throw new Error(`reverted transaction's receipt status: ${status}`);
        return `reason "${reason}", receipt status 0`;
      },
    ],
    [
      'other reads a wallet or explorer makes',
      async () => {
        const address = await contract.getAddress();
        const receipt = await provider.getTransactionReceipt(setHash);
        const block = `0x${receipt!.blockNumber.toString(16)}`;
        const calls: Array<[string, unknown[]]> = [
          ['eth_gasPrice', []],
          ['eth_maxPriorityFeePerGas', []],
          ['eth_feeHistory', ['0x4', 'latest', [25, 75]]],
          ['eth_getBalance', [signer, `0x${deployBlock.toString(16)}`]],
          ['eth_getTransactionCount', [signer, 'latest']],
          ['eth_getCode', [address, 'latest']],
          ['eth_getStorageAt', [address, '0x0', 'latest']],
          ['eth_getBlockReceipts', [block]],
          ['eth_getBlockTransactionCountByNumber', [block]],
          ['eth_getTransactionByBlockNumberAndIndex', [block, `0x${receipt!.index.toString(16)}`]],
          ['eth_getBlockByHash', [receipt!.blockHash, false]],
          ['eth_syncing', []],
          ['net_version', []],
          ['debug_traceTransaction', [setHash, { tracer: 'callTracer' }]],
          ['debug_traceTransaction', [setHash, { tracer: 'opcodeLogger' }]],
        ];
        const failures: string[] = [];
        for (const [method, params] of calls) {
          await provider.send(method, params).catch((err: Error) => failures.push(`${method}: ${err.message.split('\n')[0].slice(0, 300)}`));
        }
        if (failures.length > 0) throw new Error(failures.join('; '));
        return `${calls.length} methods answered`;
      },
    ],
  ];
}

async function main(): Promise<number> {
  if (!existsSync(path.join(RELAY_DIR, 'dist', 'index.js'))) {
    console.log(`skipped: no built official relay at ${RELAY_DIR} (set OFFICIAL_RELAY_DIR; ../shared/differential/README.md says how to build it)`);
    return 0;
  }
  const sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 500 });
  let relay: RunningRelay | undefined;
  let provider: JsonRpcProvider | undefined;
  let failed = 0;
  try {
    relay = await startRelay(sandbox);
    console.log(`official relay on ${relay.url}, sandbox mirror node ${sandbox.mirrorUrl}, consensus node ${Object.keys(sandbox.consensus)[0]}`);
    provider = new JsonRpcProvider(relay.url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 250 });
    const [owner, other] = sandboxAccounts(2);
    // Each step builds on the ones before it, so the first failure ends the flow.
    for (const [name, run] of await flow(provider, new Wallet(owner.privateKey, provider), other.address)) {
      try {
        console.log(`ok    ${name}: ${await run()}`);
      } catch (err) {
        failed++;
        console.log(`FAIL  ${name}: ${(err as Error).message.split('\n')[0]}`);
        break;
      }
    }
    for (const line of relay.mirrorFailures) console.log(`FAIL  mirror node refused a request: ${line.slice(0, 400)}`);
    failed += relay.mirrorFailures.length;
  } finally {
    provider?.destroy();
    relay?.child.kill('SIGTERM');
    await sandbox.close();
  }
  console.log(failed === 0 ? 'official relay on the sandbox: every step passed' : `official relay on the sandbox: ${failed} failure(s)`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
