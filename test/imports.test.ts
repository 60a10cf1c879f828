/**
 * No import cycles anywhere in src/: a module and the modules it imports load in one order, and a shared type or
 * helper lives in a module of its own rather than in one of two modules that need each other.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SRC, importCycles, loadedFiles, packageImports, sourceFiles } from './support/imports.js';

/** The programs `npm start`, `npm run sandbox` and `npm run keys` run from dist/ (the image runs the same). */
const ENTRIES = ['main.ts', 'sandbox/main.ts', 'keys/cli.ts'].map((f) => path.join(SRC, f));

describe('src/ import graph', () => {
  it('has no import cycles', () => {
    const cycles = importCycles(sourceFiles(SRC)).map((cycle) => cycle.map((file) => path.relative(SRC, file)).join(' <-> '));
    expect(cycles).to.deep.equal([]);
  });

  // The image installs `dependencies` only: a package the compiled gateway loads from devDependencies is missing
  // there, and the gateway exits at start-up with ERR_MODULE_NOT_FOUND.
  it('loads only packages listed under dependencies at run time', () => {
    const manifest = JSON.parse(readFileSync(path.join(SRC, '../package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const missing = loadedFiles(ENTRIES).flatMap((file) =>
      packageImports(file)
        .filter((name) => !(name in manifest.dependencies))
        .map((name) => `${path.relative(SRC, file)} imports ${name}`),
    );
    expect(missing).to.deep.equal([]);
  });
});
