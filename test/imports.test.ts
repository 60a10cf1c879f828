/**
 * No import cycles anywhere in src/: a module and the modules it imports load in one order, and a shared type or
 * helper lives in a module of its own rather than in one of two modules that need each other.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SRC, importCycles, loadedFiles, packageImports, sourceFiles } from './support/imports.js';

const SANDBOX_SRC = path.join(SRC, '../packages/sandbox/src');
const ROOT = path.join(SRC, '..');

/**
 * The programs `npm start` and `npm run keys` (the gateway's package) and `npm run sandbox` (the sandbox package's) run
 * from dist/ (the image runs the same), each with its package's manifest.
 */
const PROGRAMS = [
  { manifest: path.join(ROOT, 'package.json'), entries: ['main.ts', 'keys/cli.ts'].map((f) => path.join(SRC, f)) },
  { manifest: path.join(SANDBOX_SRC, '../package.json'), entries: [path.join(SANDBOX_SRC, 'main.ts')] },
];

describe('src/ import graph', () => {
  it('has no import cycles, in the gateway or in the sandbox package', () => {
    const cycles = [SRC, SANDBOX_SRC].flatMap((dir) => importCycles(sourceFiles(dir)).map((cycle) => cycle.map((file) => path.relative(ROOT, file)).join(' <-> ')));
    expect(cycles).to.deep.equal([]);
  });

  // The image installs `dependencies` only: a package the compiled gateway loads from devDependencies is missing
  // there, and the gateway exits at start-up with ERR_MODULE_NOT_FOUND.
  it('loads only packages listed under its package\'s dependencies at run time', () => {
    const missing = PROGRAMS.flatMap(({ manifest, entries }) => {
      const { dependencies } = JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies: Record<string, string> };
      return loadedFiles(entries).flatMap((file) =>
        packageImports(file)
          .filter((name) => !(name in dependencies))
          .map((name) => `${path.relative(ROOT, file)} imports ${name}`),
      );
    });
    expect(missing).to.deep.equal([]);
  });
});
