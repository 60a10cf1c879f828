/**
 * The sandbox stands in for outside systems (the mirror node, the consensus node, Ethereum nodes) that the gateway is
 * tested against, so it must not share the gateway's code: a bug in shared code would show up on both sides and no
 * test could see it. This pins that no file of the sandbox package imports from outside it (the gateway's src/ above all).
 */
import { expect } from 'chai';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SPECIFIER, relativeImports, sourceFiles } from '../../../test/support/imports.js';

const SANDBOX = fileURLToPath(new URL('../src', import.meta.url));
const ROOT = path.join(SANDBOX, '../../..');

/** Every relative import under packages/sandbox/src that resolves outside it, as `file -> target`. */
function importsLeavingSandbox(): string[] {
  return sourceFiles(SANDBOX).flatMap((file) =>
    relativeImports(file)
      .filter((target) => !target.startsWith(SANDBOX + path.sep))
      .map((target) => `${path.relative(ROOT, file)} -> ${path.relative(ROOT, target)}`),
  );
}

describe('sandbox: independent of the gateway', () => {
  it('imports nothing from outside its package', () => {
    expect(importsLeavingSandbox()).to.deep.equal([]);
  });

  it('sees an import that leaves the sandbox (the scan itself works)', () => {
    const line = "import { GatewayError } from '../../../../src/errors.js';";
    const [, spec] = [...line.matchAll(SPECIFIER)][0];
    const target = path.resolve(path.join(SANDBOX, 'mirror'), spec);
    expect(target.startsWith(SANDBOX + path.sep)).to.equal(false);
  });
});
