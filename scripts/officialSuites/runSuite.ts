/**
 * One suite against one relay: the suites' own runner (tests/acceptance-runner.ts, through the entry file the scratch
 * tree holds) under mocha with ts-node, as the relay's `acceptancetest:*` scripts run it (ts-mocha is mocha with
 * ts-node's register hook), reporting each outcome as it happens (jsonLinesReporter.cjs). The relay's .mocharc.js is
 * not used: it only adds JUnit reporters and a Node 22 flag that Node 20 refuses.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { FRONT_DOOR_PORT, FRONT_DOOR_URL } from './frontDoor.js';
import type { RelayUnderTest } from './relays.js';
import { parseReporterLines, type SuiteResult } from './results.js';
import type { SandboxInfo } from './sandbox.js';
import type { Scratch } from './scratch.js';
import { selectSuite } from './scratch.js';
import type { Suite } from './suites.js';

export interface RunOptions {
  scratch: Scratch;
  sandbox: SandboxInfo;
  /** The suites' local-acceptance settings (tests/server/localAcceptance.env). */
  acceptanceEnv: Record<string, string>;
  logDir: string;
  timeoutMs: number;
  /** Tests whose full title matches are left out (mocha's --grep with --invert), on both relays alike. */
  exclude?: string;
}

const REPORTER = path.join(import.meta.dirname, 'jsonLinesReporter.cjs');
/** The suites' runner logs this in its last hook; some suites' processes never end after it (open handles). */
const LAST_HOOK_LINE = 'Stop relay';
const AFTER_LAST_HOOK_MS = 60_000;

export function suiteEnv(opts: RunOptions, relay: RelayUnderTest, selection: string): NodeJS.ProcessEnv {
  const sb = opts.sandbox;
  return {
    ...opts.acceptanceEnv,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    npm_package_version: '0.80.0-SNAPSHOT',
    TS_NODE_TRANSPILE_ONLY: 'true',
    TS_NODE_PROJECT: path.join(opts.scratch.tree, 'tsconfig.json'),
    OFFICIAL_SUITES_SELECTION: selection,
    OFFICIAL_SUITES_TREE: opts.scratch.tree,
    // Not http://localhost:7546, which would make the runner start a relay of its own in-process.
    E2E_RELAY_HOST: FRONT_DOOR_URL,
    RELAY_ENDPOINT: FRONT_DOOR_URL,
    // rpc_batch3's parameter-count checks post to http://localhost:<E2E_SERVER_PORT>.
    E2E_SERVER_PORT: String(FRONT_DOOR_PORT),
    WS_RELAY_URL: relay.wsUrl,
    CHAIN_ID: `0x${sb.chainId.toString(16)}`,
    HEDERA_NETWORK: JSON.stringify({ [sb.consensus]: '0.0.3' }),
    MIRROR_NODE_URL: sb.mirrorOrigin,
    MIRROR_NODE_URL_WEB3: sb.mirrorOrigin,
    // The runner's set-up (createInitialAliasAccount) reads the new account as record.transfers[1]: right only for a
    // fee-exempt payer, which the local node's 0.0.2 is and the relays' operator is not.
    OPERATOR_ID_MAIN: sb.superuserId,
    OPERATOR_KEY_MAIN: sb.superuserKey,
    OPERATOR_KEY_FORMAT: 'DER',
    REDIS_ENABLED: 'false',
    MEMWATCH_ENABLED: 'false',
    SUBSCRIPTIONS_ENABLED: 'true',
    LOG_LEVEL: 'info',
  };
}

export async function runSuite(opts: RunOptions, suite: Suite, relay: RelayUnderTest): Promise<SuiteResult> {
  const selection = selectSuite(opts.scratch.tree, suite.name, suite.file);
  const stem = `${suite.name.replace(/[^A-Za-z0-9_]/g, '_')}.${relay.name}`;
  const report = path.join(opts.logDir, `${stem}.jsonl`);
  rmSync(report, { force: true });
  const args = [
    opts.scratch.mocha,
    '--no-config',
    '--require',
    'ts-node/register',
    ...(opts.exclude ? ['--grep', opts.exclude, '--invert'] : []),
    '--reporter',
    REPORTER,
    '--reporter-option',
    `output=${report}`,
    '--exit',
    opts.scratch.entry,
  ];
  const log = createWriteStream(path.join(opts.logDir, `${stem}.log`));
  const child = spawn(process.execPath, args, { cwd: opts.scratch.tree, env: suiteEnv(opts, relay, selection), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let lastHookTimer: NodeJS.Timeout | undefined;
  const watch = (chunk: Buffer) => {
    log.write(chunk);
    if (!lastHookTimer && chunk.toString('utf8').includes(LAST_HOOK_LINE)) lastHookTimer = setTimeout(() => kill(), AFTER_LAST_HOOK_MS);
  };
  child.stdout.on('data', watch);
  child.stderr.on('data', watch);
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(kill, opts.timeoutMs);
  // The suite runs in its own process group, which an interrupted runner must end too.
  process.once('exit', kill);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  clearTimeout(lastHookTimer);
  process.off('exit', kill);
  log.end();
  if (!existsSync(report)) {
    return { passing: 0, failing: 0, pending: 0, tests: [], crashed: `mocha exited with ${code} and no report (log: ${stem}.log)` };
  }
  const { ended, ...result } = parseReporterLines(readFileSync(report, 'utf8'));
  if (!ended) process.stdout.write(`[official-suites] ${suite.name} on ${relay.name}: mocha did not end (stopped ${lastHookTimer ? 'a minute after the last hook' : 'at the suite timeout'}); its results so far count\n`);
  // The suites' runner requires spec files inside an async describe, where mocha drops a load error: nothing runs.
  if (result.tests.length === 0) result.crashed = `no test ran: the spec did not load: ${await loadError(opts, suite, relay, selection)}`;
  return result;
}

/** Requires the spec file alone, with mocha's globals as no-ops, to learn why it did not load. */
async function loadError(opts: RunOptions, suite: Suite, relay: RelayUnderTest, selection: string): Promise<string> {
  const script = `for (const g of ['describe', 'it', 'before', 'after', 'beforeEach', 'afterEach']) { global[g] = () => {}; global[g].skip = global[g].only = () => {}; }
try { require(${JSON.stringify(path.join(opts.scratch.tree, suite.file))}); console.log('OFFICIAL_SUITES_LOAD loaded'); } catch (err) { console.log('OFFICIAL_SUITES_LOAD ' + String(err.message).split('\\n')[0]); }`;
  const child = spawn(process.execPath, ['--require', 'ts-node/register', '-e', script], { cwd: opts.scratch.tree, env: suiteEnv(opts, relay, selection), stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  await new Promise((resolve) => child.once('exit', resolve));
  return /OFFICIAL_SUITES_LOAD (.*)/.exec(out)?.[1] ?? 'unknown';
}
