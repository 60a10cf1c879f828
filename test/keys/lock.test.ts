import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = fileURLToPath(new URL('../../', import.meta.url));
// A fresh pid namespace makes the store's holder pid 1 on every start, as the gateway is in a container.
const NAMESPACE = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child'];

interface Holder {
  child: ChildProcess;
  /** The holder's first line: its key, whether it found one, or why it was refused. */
  line: Promise<{ pid: number; key?: string; found?: boolean; refused?: string }>;
  exited: Promise<number | null>;
}

/** Runs lockHolder.ts on `dataDir` in its own pid namespace. */
function holder(dataDir: string, arg: string): Holder {
  const child = spawn(NAMESPACE[0]!, [...NAMESPACE.slice(1), process.execPath, '--import', 'tsx', 'test/keys/lockHolder.ts', dataDir, arg], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = new Promise<{ pid: number; key?: string; found?: boolean; refused?: string }>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
    });
    exited.then((code) => reject(new Error(`holder exited with ${code} before a line:\n${out}${err}`)));
  });
  return { child, line, exited };
}

/** kill -9 of the store's process itself (the namespace's pid 1), seen from here by its pid outside the namespace. */
async function killHard(h: Holder): Promise<void> {
  const unshare = h.child.pid!;
  let children = '';
  try {
    children = readFileSync(`/proc/${unshare}/task/${unshare}/children`, 'utf8').trim();
  } catch {
    // The holder already ended on its own (a refused racer exits 1) and unshare went with it.
  }
  const [inner] = children ? children.split(/\s+/).map(Number) : [];
  if (inner) process.kill(inner, 'SIGKILL');
  await h.exited;
}

describe('the embedded store lock', function () {
  // Each holder is a tsx process start: seconds on a loaded machine.
  this.timeout(120_000);
  let dir: string;
  before(function () {
    if (spawnSync(NAMESPACE[0]!, [...NAMESPACE.slice(1), 'true']).status !== 0) {
      if (process.env.CI === 'true') throw new Error('unshare cannot make a pid namespace here; CI requires it');
      this.skip();
    }
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'keys-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('after kill -9 of pid 1, a restart as pid 1 on the same data comes up and still verifies the key made before', async () => {
    const first = holder(dir, 'create');
    const { pid, key } = await first.line;
    expect(pid).to.equal(1);
    await killHard(first);
    const restarted = holder(dir, key!);
    expect(await restarted.line).to.deep.equal({ pid: 1, found: true });
    expect(await restarted.exited).to.equal(0);
  });

  it('a second live process on the same data, also pid 1, is refused while the first holds it', async () => {
    const first = holder(dir, 'create');
    const { key } = await first.line;
    try {
      const second = holder(dir, key!);
      expect((await second.line).refused).to.include('The embedded key store is in use by another process');
      expect(await second.exited).to.equal(1);
    } finally {
      await killHard(first);
    }
  });

  it('two starters racing for a stale lock: exactly one takes it', async () => {
    const first = holder(dir, 'create');
    await first.line;
    await killHard(first);
    const racers = [holder(dir, 'create'), holder(dir, 'create')];
    try {
      const lines = await Promise.all(racers.map((r) => r.line));
      expect(lines.filter((l) => l.key)).to.have.length(1);
      expect(lines.filter((l) => l.refused)).to.have.length(1);
    } finally {
      for (const r of racers) if (r.child.exitCode === null) await killHard(r);
    }
  });
});
