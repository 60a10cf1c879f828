/**
 * The official-suites runner's reading of its inputs: its reporter's lines (from a real mocha run) and the banner of
 * `npm run sandbox` (from a real sandbox). The runner itself is not part of `npm test`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { officialRelayEnv } from '../../scripts/officialSuites/relays.js';
import { parseBanner } from '../../scripts/officialSuites/sandbox.js';
import { failingOnBoth, parseReporterLines, regressions } from '../../scripts/officialSuites/results.js';
import { sandboxBanner } from '../../packages/sandbox/src/banner.js';
import { startLedgerSandbox } from '../../packages/sandbox/src/index.js';

const mochaBin = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const reporter = path.resolve(import.meta.dirname, '../../scripts/officialSuites/jsonLinesReporter.cjs');

/** Runs a spec file under mocha with the runner's reporter, as the runner does, and returns what it wrote. */
async function mochaReport(dir: string, name: string, spec: string): Promise<string> {
  const file = path.join(dir, `${name}.spec.cjs`);
  const output = path.join(dir, `${name}.jsonl`);
  writeFileSync(file, spec);
  await promisify(execFile)(process.execPath, [mochaBin, '--no-config', '--reporter', reporter, '--reporter-option', `output=${output}`, file]).catch(() => undefined);
  return readFileSync(output, 'utf8');
}

describe('official-suites runner: reading results', function () {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'official-suites-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts passing, failing and pending tests, and lists what passes on the official relay only with our first error line', async function () {
    const official = parseReporterLines(
      await mochaReport(
        dir,
        'official',
        `describe('RPC Server Acceptance Tests', () => describe('Acceptance tests', () => {
          it('a', () => {});
          it('b', () => {});
          it('c', () => { throw new Error('official fails\\nsecond line'); });
          it('d');
        }));`,
      ),
    );
    const ours = parseReporterLines(
      await mochaReport(
        dir,
        'ours',
        `describe('RPC Server Acceptance Tests', () => describe('Acceptance tests', () => {
          it('a', () => {});
          it('b', () => { throw new Error('\\n  expected 200 to equal 400\\nmore'); });
          it('c', () => { throw new Error('ours fails'); });
          it('d');
        }));`,
      ),
    );
    expect([official.passing, official.failing, official.pending]).to.deep.equal([2, 1, 1]);
    expect([ours.passing, ours.failing, ours.pending]).to.deep.equal([1, 2, 1]);
    expect(regressions('s', official, ours)).to.deep.equal([{ suite: 's', title: 'b', error: 'expected 200 to equal 400' }]);
    expect(failingOnBoth(official, ours)).to.deep.equal([{ title: 'c', official: 'official fails', ours: 'ours fails' }]);
  });

  it('reports the tests a failed set-up kept from running on ours as not run', async function () {
    const official = parseReporterLines(await mochaReport(dir, 'setup-ok', `describe('x', () => { it('a', () => {}); });`));
    const ours = parseReporterLines(await mochaReport(dir, 'setup-fails', `describe('x', () => { before(() => { throw new Error('INVALID_ACCOUNT_ID'); }); it('a', () => {}); });`));
    expect(ours.tests).to.deep.equal([{ title: 'x "before all" hook for "a"', state: 'failed', error: 'INVALID_ACCOUNT_ID' }]);
    expect(regressions('s', official, ours)).to.deep.equal([{ suite: 's', title: 'x a', error: 'not run' }]);
  });
});

describe('official-suites runner: reading the sandbox banner', function () {
  it('finds the consensus node, mirror node, relay operator, fee-exempt superuser and prefunded accounts that npm run sandbox prints', async function () {
    const sandbox = await startLedgerSandbox({ chainId: 296, history: false });
    try {
      const info = parseBanner(sandboxBanner(sandbox));
      expect(info.chainId).to.equal(296);
      expect(info.consensus).to.equal(Object.keys(sandbox.consensus)[0]);
      expect(info.mirrorOrigin).to.equal(sandbox.mirrorUrl);
      expect(info.operatorId).to.equal(sandbox.operator.accountId);
      expect(info.operatorKey).to.equal(sandbox.operator.privateKey);
      expect(info).to.include({ superuserId: '0.0.2', superuserKey: sandbox.superuser.privateKey });
      expect(info.accounts.map((a) => a.accountId)).to.deep.equal(sandbox.accounts.map((a) => a.accountId));
      expect(info.accounts.at(-1)!.privateKey).to.equal(sandbox.accounts.at(-1)!.privateKey);
    } finally {
      await sandbox.close();
    }
  });
});

describe('official-suites runner: the official relay\'s settings', function () {
  it('gives --official-setting values over the suites\' file and the runner\'s own, for a group that sets them in-process only', function () {
    const sb = { chainId: 298, consensus: '127.0.0.1:50211', mirrorOrigin: 'http://127.0.0.1:5551', operatorId: '0.0.1011', operatorKey: 'key' } as Parameters<typeof officialRelayEnv>[1];
    const file = { ENABLE_NONCE_ORDERING: 'false', USE_ASYNC_TX_PROCESSING: 'false' };
    const env = officialRelayEnv(file, sb, 1, 2, { ENABLE_NONCE_ORDERING: 'true', REDIS_ENABLED: 'true' });
    expect(env).to.include({ ENABLE_NONCE_ORDERING: 'true', REDIS_ENABLED: 'true', USE_ASYNC_TX_PROCESSING: 'false', SERVER_PORT: '1' });
    expect(officialRelayEnv(file, sb, 1, 2)).to.include({ ENABLE_NONCE_ORDERING: 'false', REDIS_ENABLED: 'false' });
  });
});
