/**
 * `npm run official-suites -- <suite...> [--relays official,ours] [--exclude REGEX]`
 *
 * Runs the official hiero JSON-RPC relay's acceptance suites against our gateway and against the official relay, both
 * on one `npm run sandbox`, and prints per suite passing / failing / pending for both, then every test that passes on
 * the official relay and not on ours. Suites are spec file names: rpc_batch2, jsonRpcCompliance, conformityTests;
 * WebSocket suites as ws:validations. Not part of `npm test`; the README's section on the official relay says how to
 * get what it needs (OFFICIAL_RELAY_DIR, EXECUTION_APIS_DIR, OFFICIAL_SUITES_CACHE).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FRONT_DOOR_PORT, openFrontDoor } from './officialSuites/frontDoor.js';
import { startOfficialRelay, startOurGateway, type RelayName, type RelayUnderTest } from './officialSuites/relays.js';
import { summary, writeReport, type Results } from './officialSuites/report.js';
import { runSuite, type RunOptions } from './officialSuites/runSuite.js';
import { startSandbox } from './officialSuites/sandbox.js';
import { prepareScratch } from './officialSuites/scratch.js';
import { needsExecutionApis, postsToRelayPort, resolveSuite } from './officialSuites/suites.js';
import { countsCell } from './officialSuites/results.js';

const REPO = path.resolve(import.meta.dirname, '..');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    relays: { type: 'string', default: 'official,ours' },
    report: { type: 'string' },
    exclude: { type: 'string' },
    'official-setting': { type: 'string', multiple: true, default: [] },
    'suite-timeout-minutes': { type: 'string', default: '20' },
  },
});

const log = (line: string) => console.log(`[official-suites] ${line}`);

async function main(): Promise<number> {
  const relayDir = path.resolve(process.env.OFFICIAL_RELAY_DIR ?? path.join(REPO, '..', 'official-relay'));
  if (!existsSync(path.join(relayDir, 'dist', 'index.js')) || !existsSync(path.join(relayDir, 'tests'))) {
    console.error(`no built official relay with its tests at ${relayDir} (set OFFICIAL_RELAY_DIR; ../shared/differential/README.md says how to build it)`);
    return 2;
  }
  if (positionals.length === 0) {
    console.error('name the suites to run, for example: npm run official-suites -- rpc_batch2 jsonRpcCompliance ws:validations');
    return 2;
  }
  const suites = positionals.map((name) => resolveSuite(name, relayDir));
  const executionApisDir = process.env.EXECUTION_APIS_DIR;
  if (suites.some(needsExecutionApis) && !(executionApisDir && existsSync(path.join(executionApisDir, 'tests')))) {
    console.error('conformityTests reads the Ethereum execution-apis vectors: set EXECUTION_APIS_DIR to a checkout of ethereum/execution-apis at the commit the relay pins (see the README)');
    return 2;
  }
  const hardCoded = suites.filter(postsToRelayPort);
  if (FRONT_DOOR_PORT !== 7546 && hardCoded.length > 0) {
    console.error(`${hardCoded.map((s) => s.name).join(' and ')} post to http://127.0.0.1:7546/ whatever E2E_RELAY_HOST says: run them without OFFICIAL_SUITES_PORT`);
    return 2;
  }
  const relayNames = values.relays!.split(',') as RelayName[];
  if (relayNames.some((r) => r !== 'official' && r !== 'ours')) throw new Error('--relays takes official, ours or both');
  const officialSettings: Record<string, string> = {};
  for (const setting of values['official-setting']!) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(setting);
    if (!m) throw new Error(`--official-setting takes KEY=VALUE, not ${setting}`);
    officialSettings[m[1]] = m[2];
  }

  const cacheDir = path.resolve(process.env.OFFICIAL_SUITES_CACHE ?? path.join(homedir(), '.cache', 'official-suites'));
  const logDir = path.join(cacheDir, 'runs', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(logDir, { recursive: true });
  const reportFile = path.resolve(values.report ?? path.join(logDir, 'report.json'));
  log(`logs and report in ${logDir}`);

  const scratch = prepareScratch(relayDir, cacheDir, logDir, executionApisDir, log);
  const dotenv = createRequire(path.join(scratch.tree, 'package.json'))('dotenv') as { parse(src: string): Record<string, string> };
  const acceptanceEnv = dotenv.parse(readFileSync(path.join(scratch.tree, 'tests', 'server', 'localAcceptance.env'), 'utf8'));

  const frontDoor = await openFrontDoor();
  const stops: Array<() => Promise<void>> = [async () => rmSync(scratch.tree, { recursive: true, force: true }), () => frontDoor.close()];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  const results: Results = {};
  try {
    log('starting npm run sandbox');
    const sandbox = await startSandbox(REPO, logDir, Number(acceptanceEnv.CHAIN_ID));
    stops.push(() => sandbox.process.stop());
    log(`sandbox: consensus ${sandbox.info.consensus}, mirror ${sandbox.info.mirrorOrigin}, operator ${sandbox.info.operatorId}`);
    const relays: RelayUnderTest[] = [];
    for (const name of relayNames) {
      const relay = name === 'official' ? await startOfficialRelay(relayDir, acceptanceEnv, sandbox.info, logDir, officialSettings) : await startOurGateway(REPO, sandbox.info, logDir, logDir);
      stops.push(() => relay.process.stop());
      relays.push(relay);
      log(`${name}: ${relay.httpUrl.replace(/\/v1\/[^/]+\//, '/v1/<key>/')} (${relay.notes.join('; ')})`);
    }
    const opts: RunOptions = { scratch, sandbox: sandbox.info, acceptanceEnv, logDir, timeoutMs: Number(values['suite-timeout-minutes']) * 60_000, exclude: values.exclude };
    const meta = {
      relayDir,
      executionApisDir,
      exclude: values.exclude,
      relays: Object.fromEntries(relays.map((r) => [r.name, r.notes])),
      startedAt: new Date().toISOString(),
    };
    for (const suite of suites) {
      results[suite.name] = {};
      for (const relay of relays) {
        frontDoor.pointAt(relay.httpUrl);
        const started = Date.now();
        const result = await runSuite(opts, suite, relay);
        results[suite.name][relay.name] = result;
        log(`${suite.name} on ${relay.name}: ${countsCell(result)} (pass / fail / pending) in ${Math.round((Date.now() - started) / 1000)} s${result.crashed ? `: ${result.crashed}` : ''}`);
        writeReport(reportFile, meta, results);
      }
    }
  } finally {
    await stopAll();
  }
  console.log(`\n${summary(results)}\n`);
  log(`report: ${reportFile}`);
  return 0;
}

process.exitCode = await main();
