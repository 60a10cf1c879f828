/**
 * No import cycles anywhere in src/: a module and the modules it imports load in one order, and a shared type or
 * helper lives in a module of its own rather than in one of two modules that need each other.
 */
import { expect } from 'chai';
import path from 'node:path';
import { SRC, importCycles, sourceFiles } from './support/imports.js';

describe('src/ import graph', () => {
  it('has no import cycles', () => {
    const cycles = importCycles(sourceFiles(SRC)).map((cycle) => cycle.map((file) => path.relative(SRC, file)).join(' <-> '));
    expect(cycles).to.deep.equal([]);
  });
});
