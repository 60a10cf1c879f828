/**
 * The ledger relay's requests flow one way: the wiring (src/relay/) uses the method modules (src/methods/), which use
 * the mirror client, conversions and caches (src/ledger/); nothing below imports what is above it, and no import
 * cycle runs through any of them.
 */
import { expect } from 'chai';
import path from 'node:path';
import { SRC, importCycles, relativeImports, sourceFiles } from '../support/imports.js';

const LAYERS = ['relay', 'methods', 'ledger'];
const layerOf = (file: string) => LAYERS.indexOf(path.relative(SRC, file).split(path.sep)[0]);

describe('ledger relay: one-way request flow', () => {
  it('src/ledger imports nothing from src/methods or src/relay, src/methods nothing from src/relay', () => {
    const upward = LAYERS.flatMap((layer) =>
      sourceFiles(path.join(SRC, layer)).flatMap((file) =>
        relativeImports(file)
          .filter((target) => layerOf(target) !== -1 && layerOf(target) < layerOf(file))
          .map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`),
      ),
    );
    expect(upward).to.deep.equal([]);
  });

  it('no import cycle runs through the relay, its methods or the ledger modules', () => {
    const cycles = importCycles(sourceFiles(SRC))
      .filter((cycle) => cycle.some((file) => layerOf(file) !== -1))
      .map((cycle) => cycle.map((file) => path.relative(SRC, file)));
    expect(cycles).to.deep.equal([]);
  });

  it('finds a cycle where there is one (the check itself works)', () => {
    const graph: Record<string, string[]> = { a: ['b'], b: ['c'], c: ['a'], d: ['a'] };
    expect(importCycles(Object.keys(graph), (f) => graph[f])).to.deep.equal([['a', 'b', 'c']]);
  });
});
