/**
 * The sandbox stands in for outside systems (the mirror node, the consensus node, Ethereum nodes) that the gateway is
 * tested against, so it must not share the gateway's code: a bug in shared code would show up on both sides and no
 * test could see it. This pins that no file under src/sandbox imports from the rest of src/.
 */
import { expect } from 'chai';
import path from 'node:path';
import { SPECIFIER, SRC, relativeImports, sourceFiles } from '../support/imports.js';

const SANDBOX = path.join(SRC, 'sandbox');

/** Every relative import under src/sandbox that resolves outside it, as `file -> target`. */
function importsLeavingSandbox(): string[] {
  return sourceFiles(SANDBOX).flatMap((file) =>
    relativeImports(file)
      .filter((target) => !target.startsWith(SANDBOX + path.sep))
      .map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`),
  );
}

describe('sandbox: independent of the gateway', () => {
  it('imports nothing from the rest of src/', () => {
    expect(importsLeavingSandbox()).to.deep.equal([]);
  });

  it('sees an import that leaves the sandbox (the scan itself works)', () => {
    const line = "import { GatewayError } from '../../errors.js';";
    const [, spec] = [...line.matchAll(SPECIFIER)][0];
    const target = path.resolve(path.join(SANDBOX, 'mirror'), spec);
    expect(target.startsWith(SANDBOX + path.sep)).to.equal(false);
  });
});
