/**
 * The relay against the official hiero-json-rpc-relay's recorded answers (`../shared/differential/`): the same
 * deterministic mirror-node stand-in the official relay answered from, our gateway in front of it, and the
 * differential's own compare.mjs replaying the 208 requests with the accepted spec differences counted as agreement.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestGateway, withLedgerNetwork, type TestGateway } from '../support/gateway.js';
import { onFreePort } from '../support/ports.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * The team's shared copy beside the repository when there is one (it may be newer); otherwise the copy vendored in
 * test/reference, so a clone with nothing beside it runs the differential too instead of skipping it.
 */
const DIFFERENTIAL = [path.resolve(REPO, '../shared/differential'), path.join(REPO, 'test/reference/differential')].find((dir) =>
  existsSync(path.join(dir, 'differential/compare.mjs')),
)!;
const STUB = path.join(DIFFERENTIAL, 'mirror-stub/server.mjs');
const COMPARE = path.join(DIFFERENTIAL, 'differential/compare.mjs');
const GOLDEN = path.join(DIFFERENTIAL, 'differential/golden/official.jsonl');
/** The chain the answers were recorded on (0x12a): synthetic transactions carry the relay's own chain id. */
const CHAIN_ID = 298;

/** Starts the stand-in and resolves once it prints its listening line. */
function startStub(): Promise<{ url: string; child: ChildProcess }> {
  return onFreePort(async (port) => {
    const child = spawn(process.execPath, [STUB, '--port', String(port), '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('listening on')) resolve();
      });
      child.stderr!.on('data', (chunk) => (out += chunk));
      // As when the port was taken meanwhile.
      child.once('exit', (code) => reject(new Error(`mirror stand-in exited with ${code}: ${out}`)));
    });
    return { url: `http://127.0.0.1:${port}`, child };
  });
}

/** Runs a node script to its end; its report is the --json file, its console output is not needed. */
function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

describe('ledger relay against the official relay’s recorded answers (differential)', function () {
  this.timeout(180_000);
  let stub: { url: string; child: ChildProcess } | undefined;
  let gw: TestGateway | undefined;

  before(async () => {
    stub = await startStub();
    gw = await startTestGateway({
      chains: withLedgerNetwork('testnet', { chainId: CHAIN_ID, apis: ['rpc'], ledger: { mirrorUrl: stub.url, mirrorCallUrl: stub.url, consensus: 'testnet' } }),
    });
  });

  after(async () => {
    await gw?.close();
    stub?.child.kill();
  });

  it('agrees on all 208 requests, counting the accepted spec differences as agreement', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'differential-'));
    try {
      const report = path.join(dir, 'report.json');
      const url = `${gw!.gw.url}/hedera-testnet/v1/${gw!.key}/rpc`;
      await run([COMPARE, GOLDEN, url, '--chain-id', `0x${CHAIN_ID.toString(16)}`, '--accept', '--json', report]);
      const outcome = JSON.parse(readFileSync(report, 'utf8')) as { passed: number; failed: number; requests: Array<{ passed: boolean; name: string; items: Array<{ cls: string }> }> };
      const failures = outcome.requests
        .filter((r) => !r.passed)
        .map((r) => `${r.name}: ${JSON.stringify(r.items.filter((i) => !/^(accepted:|key-order|extra-field|hex-|error-message|error-data|http-status)/.test(i.cls))).slice(0, 400)}`);
      expect(failures, failures.join('\n')).to.deep.equal([]);
      expect(`${outcome.passed} passed, ${outcome.failed} failed`).to.equal('208 passed, 0 failed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
