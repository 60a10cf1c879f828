import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { bufferedDestination, createLogger, logRequest } from '../../src/log.js';

const LOG_MODULE = fileURLToPath(new URL('../../src/log.ts', import.meta.url));

/** Runs a process that logs `count` lines through the buffered destination into `file`, then ends as `ending` says. */
async function logThenEnd(file: string, count: number, ending: 'exit' | 'natural'): Promise<string[]> {
  const script = `
    import { createLogger, bufferedDestination } from ${JSON.stringify(LOG_MODULE)};
    const log = createLogger('info', bufferedDestination(${JSON.stringify(file)}));
    for (let n = 0; n < ${count}; n++) log.info({ n }, 'line');
    ${ending === 'exit' ? 'setTimeout(() => process.exit(0), 100);' : ''}
  `;
  await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

describe('log destination: lines written in blocks', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'log-dest-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const ending of ['exit', 'natural'] as const) {
    it(`keeps every line, in order, when the process ends (${ending === 'exit' ? 'process.exit' : 'nothing left to do'})`, async () => {
      // Fewer lines than a block, and many blocks' worth.
      for (const count of [3, 500]) {
        const file = join(dir, `${ending}-${count}.log`);
        const lines = await logThenEnd(file, count, ending);
        expect(lines.map((l) => JSON.parse(l).n)).to.deep.equal(Array.from({ length: count }, (_, n) => n));
      }
    });
  }

  it('writes a quiet gateway\'s request line at once, not when a block has filled', async () => {
    // One request a minute must show in the log as it happens: an operator tailing it would otherwise wait for a block.
    const file = join(dir, 'quiet.log');
    const logger = createLogger('info', bufferedDestination(file));
    logRequest(logger, { requestId: 'r1', api: 'rpc', status: 200, keyId: 'key_1' });
    const deadline = Date.now() + 2_000;
    const read = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
    while (!read().includes('"requestId":"r1"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(JSON.parse(read().trim())).to.include({ requestId: 'r1', keyId: 'key_1', msg: 'request' });
  });
});
