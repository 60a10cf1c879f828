// Leaves in node_modules only the packages the gateway can load, for the image's variant (the Dockerfile's VARIANT):
// `npm prune --omit=dev` keeps every peer dependency npm installed and every platform's native build, which nothing
// loads in the image.
//
//   node prune.mjs production|sandbox [APP_DIR]
import { existsSync, lstatSync, readFileSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

const [variant, app = process.cwd()] = process.argv.slice(2);
if (variant !== 'production' && variant !== 'sandbox') throw new Error(`VARIANT is production or sandbox, not ${variant}`);

// The ledger sandbox and the EVM devnets, a workspace package (packages/sandbox) with the real EVM among its
// dependencies: only the sandbox variant loads it. What else it depends on stays only where the gateway needs it too.
const SANDBOX_ONLY = ['@multichain-gateway/sandbox'];
// A peer dependency of react-native-get-random-values, which the ledger SDK's cryptography loads only under React
// Native; npm installs it (and Babel and Metro with it) because peers are installed by default.
const NEVER_LOADED = ['react-native'];
// Native builds named after a platform (`edr-linux-x64-gnu`): only this machine's is loaded.
const PLATFORM = /-(darwin|linux|win32|freebsd|android)-(x64|arm64|arm|ia32)(-(gnu|musl|msvc|gnueabihf))?$/;
const libc = process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl';
const thisPlatform = (name) => {
  const m = PLATFORM.exec(name);
  return !m || (m[1] === process.platform && m[2] === process.arch && (m[1] !== 'linux' || (m[4] ?? 'gnu') === libc));
};

const root = path.join(app, 'node_modules');
const manifest = (dir) => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));

/** Node's lookup: `name` in the nearest node_modules from `from` up to the app's. */
function resolve(name, from) {
  for (let dir = from; dir.startsWith(root) || dir === app; dir = path.dirname(dir)) {
    const candidate = path.join(dir, path.basename(dir) === 'node_modules' ? '' : 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === app) break;
  }
  return undefined;
}

const kept = new Set();
function keep(name, from) {
  if (NEVER_LOADED.includes(name) || !thisPlatform(name)) return;
  const dir = resolve(name, from);
  if (!dir || kept.has(dir)) return;
  kept.add(dir);
  const pkg = manifest(dir);
  for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies })) keep(dep, dir);
}
const top = Object.keys(manifest(app).dependencies ?? {});
for (const name of top) if (variant === 'sandbox' || !SANDBOX_ONLY.includes(name)) keep(name, app);

/** Every installed package directory under `dir` (a node_modules), nested ones included. */
function installed(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    if (entry.startsWith('.')) return [];
    const full = path.join(dir, entry);
    if (entry.startsWith('@')) return readdirSync(full).flatMap((sub) => [path.join(full, sub), ...installed(path.join(full, sub, 'node_modules'))]);
    return [full, ...installed(path.join(full, 'node_modules'))];
  });
}

function size(dir) {
  const s = lstatSync(dir, { throwIfNoEntry: false });
  if (!s) return 0;
  return s.isDirectory() ? readdirSync(dir).reduce((n, e) => n + size(path.join(dir, e)), 0) : s.size;
}

let removed = 0;
for (const dir of installed(root)) {
  if (kept.has(dir) || [...kept].some((k) => dir.startsWith(k + path.sep) && !path.relative(k, dir).includes('node_modules'))) continue;
  if (!existsSync(dir)) continue;
  removed += size(dir);
  rmSync(dir, { recursive: true, force: true });
}
// Files Node never loads: TypeScript sources and declarations, source maps (the image does not run with
// --enable-source-maps) and documentation.
const UNLOADED_FILE = /\.([cm]?ts|map|md)$/;
function stripFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) stripFiles(full);
    else if (UNLOADED_FILE.test(entry.name)) {
      removed += statSync(full).size;
      rmSync(full);
    }
  }
}
stripFiles(root);
// Workspace packages live in the app's folder, linked from node_modules: one the variant does not load goes with its
// link, one it loads keeps only what Node reads (its manifest and compiled dist/).
for (const workspace of manifest(app).workspaces ?? []) {
  const dir = path.join(app, workspace);
  const loaded = [...kept].some((k) => existsSync(k) && realpathSync(k) === realpathSync(dir));
  for (const entry of readdirSync(dir)) {
    if (loaded && (entry === 'package.json' || entry === 'dist')) continue;
    removed += size(path.join(dir, entry));
    rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
  if (loaded) stripFiles(path.join(dir, 'dist'));
  else rmSync(dir, { recursive: true, force: true });
}
// npm's own bookkeeping, which lists what was just removed: the gateway never reads it.
for (const extra of ['.bin', '.package-lock.json', '.cache']) rmSync(path.join(root, extra), { recursive: true, force: true });
console.log(`prune (${variant}): kept ${kept.size} packages, removed ${(removed / 1e6).toFixed(0)} MB`);
