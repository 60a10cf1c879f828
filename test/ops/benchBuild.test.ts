import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The root files of a TypeScript project, as `tsc --showConfig` resolves them. */
async function rootFiles(project: string): Promise<string[]> {
  const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
  const { stdout } = await promisify(execFile)(process.execPath, [tsc, '--showConfig', '-p', project], { cwd: REPO });
  return (JSON.parse(stdout) as { files: string[] }).files.map((f) => f.replace(/^\.\//, ''));
}

describe('bench build', () => {
  // `tsc -b` judges a project up to date by its root files alone: with only the bench script as root, a change in src
  // left `npm run bench` measuring the gateway as it was compiled before.
  it('has every gateway source file among its inputs, so a change to one recompiles the gateway it measures', async () => {
    const [bench, gateway] = await Promise.all([rootFiles('tsconfig.bench.json'), rootFiles('tsconfig.build.json')]);
    expect(gateway).to.include('src/app.ts');
    expect(bench).to.include.members(gateway);
  });
});
