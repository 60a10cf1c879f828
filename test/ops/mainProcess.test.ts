import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { lockDataDir } from '../../src/keys/lock.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Starts `src/main.ts` as `npm start` does (as another user, with `prefix` a command that drops to it); `output()` is everything it printed so far. */
function spawnMain(env: Record<string, string>, prefix: string[] = []): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const command = [...prefix, process.execPath, '--import', 'tsx', 'src/main.ts'];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return { child, output: () => output, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

async function runMain(env: Record<string, string>, prefix: string[] = []): Promise<{ code: number | null; output: string }> {
  const main = spawnMain(env, prefix);
  const code = await main.exited;
  return { code, output: main.output() };
}

/** A config file serving only one Ethereum network (mainnet unless named), from an upstream that is not there. */
function ethereumOnly(dir: string, network = 'mainnet', chainId = 1): string {
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, yaml.dump({ chains: { ethereum: { displayName: 'Ethereum', networks: { [network]: { chainId, upstreams: ['http://127.0.0.1:9/'] } } } } }));
  return file;
}

describe('npm start as a new user meets it', function () {
  // Each test starts a gateway process: many seconds on a loaded machine.
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-start-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a port already taken: exit 1 with one line naming the port and PORT, no stack trace', async () => {
    const taken = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const { code, output } = await runMain({ GATEWAY_CONFIG: ethereumOnly(dir), PORT: String(port), DATA_DIR: join(dir, 'data') });
      expect(code).to.equal(1);
      expect(output).to.include(`127.0.0.1:${port}`).and.to.include('PORT');
      expect(output).not.to.match(/^\s+at /m);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it('an embedded key store held by another process: exit 1 with the store message, no stack trace', async () => {
    const data = join(dir, 'data');
    const unlock = await lockDataDir(data);
    try {
      const { code, output } = await runMain({ PORT: '0', DATA_DIR: data, SANDBOX_HISTORY: 'false' });
      expect(code).to.equal(1);
      expect(output).to.include('The embedded key store is in use by another process');
      expect(output).not.to.match(/^\s+at /m);
    } finally {
      unlock();
    }
  });

  it('a data directory this user cannot write: exit 1 with one line naming the path and the user', async function () {
    // The directory is root's, 0700; the gateway runs as nobody.
    if (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0) {
      if (process.env.CI === 'true') throw new Error('running the gateway as nobody needs root and setpriv (util-linux); CI runs as root and requires it');
      console.warn('      skipped: running the gateway as nobody needs root and setpriv (util-linux)');
      this.skip();
    }
    const data = join(dir, 'data');
    const { code, output } = await runMain({ PORT: '0', DATA_DIR: data, SANDBOX_HISTORY: 'false' }, ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups']);
    expect(code).to.equal(1);
    expect(output.trim().split('\n')).to.have.length(1);
    expect(output).to.include('The data directory cannot be written').and.to.include(data).and.to.include('user nobody (uid 65534)');
  });

  it('an unreachable DATABASE_URL: exit 1 with one line naming DATABASE_URL and the host, not the password', async () => {
    const { code, output } = await runMain({ GATEWAY_CONFIG: ethereumOnly(dir), PORT: '0', DATABASE_URL: 'postgres://gw:s3cret-pw@db.invalid:5432/gw' });
    expect(code).to.equal(1);
    expect(output.trim().split('\n')).to.have.length(1);
    expect(output).to.include('DATABASE_URL').and.to.include('db.invalid:5432/gw');
    expect(output).not.to.include('s3cret-pw');
  });

  it('a mistyped ledger operator key: exit 1 at start naming operatorKey, without echoing the key', async () => {
    const file = join(dir, 'gateway.yaml');
    const ledger = { mirrorUrl: 'http://127.0.0.1:9/', consensus: { '127.0.0.1:9': '0.0.3' }, operatorId: '0.0.2' };
    writeFileSync(file, yaml.dump({ chains: { hedera: { kind: 'ledger', displayName: 'Hedera', networks: { mainnet: { chainId: 295, ledger } } } } }));
    const mistyped = `0x${'ab'.repeat(31)}`;
    const { code, output } = await runMain({ GATEWAY_CONFIG: file, OPERATOR_KEY_HEDERA_MAINNET: mistyped, PORT: '0', DATA_DIR: join(dir, 'data') });
    expect(code).to.equal(1);
    expect(output).to.include('chains.hedera.networks.mainnet.ledger.operatorKey');
    expect(output).not.to.include(mistyped.slice(2));
  });

  // A chain with only a test network (a team that never touches mainnet) is a valid config too.
  for (const [network, chainId] of [['mainnet', 1], ['testnet', 11155111]] as const) {
    it(`with a config file serving only ethereum ${network}, the banner names only served networks and its curl lines reach them`, async () => {
      const main = spawnMain({ GATEWAY_CONFIG: ethereumOnly(dir, network, chainId), PORT: '0', DATA_DIR: join(dir, 'data') });
      try {
        await new Promise<void>((resolve, reject) => {
          const done = () => /Try it:\n[\s\S]*-d '[^']*'\n\s*$/.test(main.output()) && resolve();
          main.child.stdout!.on('data', done);
          main.exited.then((code) => reject(new Error(`gateway exited with ${code}:\n${main.output()}`)));
        });
        const banner = main.output();
        expect(banner).not.to.match(/hedera|sepolia/);
        const commands = [...banner.matchAll(/^\s*(curl [^\n]*)\\\n\s*(-d [^\n]*)$/gm)].map((m) => `${m[1]} ${m[2]}`);
        expect(commands).to.have.length(2);
        for (const command of commands) {
          const out = await new Promise<string>((resolve, reject) => execFile('sh', ['-c', command], (err, stdout) => (err ? reject(err) : resolve(stdout))));
          // The upstream is absent, so the call fails, but as a JSON-RPC answer of the served network, not a 404.
          expect(JSON.parse(out)).to.include({ jsonrpc: '2.0', id: 1 });
        }
      } finally {
        main.child.kill('SIGTERM');
        await main.exited;
      }
    });
  }
});
