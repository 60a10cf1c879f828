/**
 * The scratch folder the suites run from, outside the project and outside the relay's checkout (which is only read):
 *   deps/<hash>/   the suites' test-only packages (mocha, ts-node, chai, ...) at the versions of the relay's
 *           package-lock.json, installed once per set of versions;
 *   runs/<time>/tree/   each run's own copy of the relay's src/, tests/ and docs/ (the specs import the relay's
 *           sources), whose node_modules links every package of the relay's own node_modules, then the test-only
 *           ones, then `execution-apis`; removed when the run ends, its logs and report kept beside it.
 * The relay's `npm ci` cannot run here as is: its `execution-apis` devDependency is a git URL the registry cannot
 * serve, and the suites use nothing of it but the vectors under tests/, which EXECUTION_APIS_DIR provides.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What the specs and their helpers import that the relay's production dependencies lack. */
// redis-memory-server: tests/relay/helpers.ts imports it for suites that never start it; its binary download is an
// install script, which --ignore-scripts skips.
// ajv, ajv-formats: the conformity batch's response validation.
const TEST_PACKAGES = ['mocha', 'ts-node', 'typescript', 'chai', 'chai-as-promised', 'chai-exclude', 'sinon', '@octokit/core', 'redis-memory-server', 'ajv', 'ajv-formats'];

export interface Scratch {
  /** The copy the suites run in. */
  tree: string;
  mocha: string;
  /** Where the suites' entry file is (inside tree). */
  entry: string;
}

function lockVersions(relayDir: string): Record<string, string> {
  const lock = JSON.parse(readFileSync(path.join(relayDir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  return Object.fromEntries(
    TEST_PACKAGES.map((name) => {
      const version = lock.packages[`node_modules/${name}`]?.version;
      if (!version) throw new Error(`${name} is not in ${relayDir}/package-lock.json`);
      return [name, version];
    }),
  );
}

/** Installs the packages once per set of versions, in a folder of its own, so a run in progress never sees a reinstall. */
function installDeps(relayDir: string, cacheDir: string, log: (line: string) => void): string {
  const manifest = JSON.stringify({ name: 'official-suites-deps', version: '1.0.0', private: true, dependencies: lockVersions(relayDir) }, null, 2);
  const depsDir = path.join(cacheDir, 'deps', createHash('sha256').update(manifest).digest('hex').slice(0, 12));
  const stamp = path.join(depsDir, '.installed');
  if (existsSync(stamp)) return depsDir;
  log(`installing the suites' test dependencies into ${depsDir}`);
  mkdirSync(depsDir, { recursive: true });
  writeFileSync(path.join(depsDir, 'package.json'), manifest);
  execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: depsDir, stdio: 'inherit' });
  writeFileSync(stamp, manifest);
  return depsDir;
}

/** Links each package of `from` (scoped ones one by one) into `to`, skipping names already there. */
function linkPackages(from: string, to: string): void {
  for (const name of readdirSync(from)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      mkdirSync(path.join(to, name), { recursive: true });
      for (const sub of readdirSync(path.join(from, name))) {
        if (!existsSync(path.join(to, name, sub))) symlinkSync(path.join(from, name, sub), path.join(to, name, sub));
      }
    } else if (!existsSync(path.join(to, name))) {
      symlinkSync(path.join(from, name), path.join(to, name));
    }
  }
}

const ENTRY = `// Written by the project's official-suites runner: the suites' own runner, on the spec files linked in
// OFFICIAL_SUITES_SELECTION only (registerAcceptanceSuite loads every spec file of its directory).
import { registerAcceptanceSuite } from './acceptance-runner';

registerAcceptanceSuite({ testDir: process.env.OFFICIAL_SUITES_SELECTION as string, wsServer: 'never' });
`;

export function prepareScratch(relayDir: string, cacheDir: string, runDir: string, executionApisDir: string | undefined, log: (line: string) => void): Scratch {
  const depsDir = installDeps(relayDir, cacheDir, log);
  const tree = path.join(runDir, 'tree');
  for (const part of ['src', 'tests', 'docs', 'package.json', 'tsconfig.json']) cpSync(path.join(relayDir, part), path.join(tree, part), { recursive: true });
  const modules = path.join(tree, 'node_modules');
  mkdirSync(modules);
  linkPackages(path.join(relayDir, 'node_modules'), modules);
  linkPackages(path.join(depsDir, 'node_modules'), modules);
  if (executionApisDir) {
    symlinkSync(path.resolve(executionApisDir), path.join(modules, 'execution-apis'));
    // The conformity suites check each answer against the execution-apis OpenRPC document, which the relay's CI builds
    // in that checkout (`npm run build` writes openrpc.json) and places at the relay's root under this name.
    const openrpc = path.join(executionApisDir, 'openrpc.json');
    if (existsSync(openrpc)) cpSync(openrpc, path.join(tree, 'openrpc_exec_apis.json'));
    else log(`no ${openrpc}: the conformity suites' schema checks fail without it (run npm run build in that checkout)`);
  }
  const entry = path.join(tree, 'tests', 'official-suites.entry.ts');
  writeFileSync(entry, ENTRY);
  return { tree, entry, mocha: path.join(depsDir, 'node_modules', 'mocha', 'bin', 'mocha.js') };
}

/** A directory holding only the suite's spec file (a link into the tree, so its relative imports resolve there). */
export function selectSuite(tree: string, name: string, file: string): string {
  const dir = path.join(tree, 'selection', name.replace(/[^A-Za-z0-9_]/g, '_'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  symlinkSync(path.join(tree, file), path.join(dir, path.basename(file)));
  return dir;
}
