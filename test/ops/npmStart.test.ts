import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import yaml from 'js-yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** True when something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// A supervisor (systemd, a process manager, CI) signals npm's pid; a terminal's Ctrl-C signals the whole foreground
// process group, so the gateway gets SIGINT from the terminal and again from npm, which forwards it.
const CASES = [
  { signal: 'SIGTERM', to: "npm's pid", toGroup: false },
  { signal: 'SIGINT', to: 'the process group, as Ctrl-C does', toGroup: true },
] as const;

describe('npm start stops on a signal', function () {
  // `npm start` compiles to dist/ first, then starts a gateway process: many seconds on a loaded machine.
  this.timeout(240_000);
  let dir: string;
  let group: number | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  });
  afterEach(() => {
    // A gateway left behind by npm is still in npm's process group, even after a timeout.
    try {
      if (group) process.kill(-group, 'SIGKILL');
    } catch {
      // Nothing left.
    }
    rmSync(dir, { recursive: true, force: true });
  });

  for (const { signal, to, toGroup } of CASES) {
    it(`${signal} to ${to} reaches the gateway: it drains, frees its port and removes admin.json`, async () => {
      const config = join(dir, 'gateway.yaml');
      writeFileSync(config, yaml.dump({ chains: { ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: ['http://127.0.0.1:9/'] } } } } }));
      const data = join(dir, 'data');
      // A user's shell: the PATH without the node_modules/.bin entries a test runner started through npm inherits.
      const PATH = (process.env.PATH ?? '').split(':').filter((d) => !d.endsWith('node_modules/.bin')).join(':');
      const env = { ...process.env, PATH, PORT: '0', DATA_DIR: data, GATEWAY_CONFIG: config, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' };
      // Its own process group: the test's stand-in for a terminal's foreground group.
      const npm = spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      npm.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      npm.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
      group = npm.pid;
      // 'close', not 'exit': npm's pipes may still hold the gateway's last lines when npm exits.
      const exited = new Promise<number | null>((resolve) => npm.once('close', (code) => resolve(code)));
      const port = await new Promise<number>((resolve, reject) => {
        npm.stdout.on('data', () => {
          const m = /Gateway:\s+http:\/\/[^\s/]+:(\d+)/.exec(out);
          if (m && out.includes('Try it:')) resolve(Number(m[1]));
        });
        exited.then((code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
      });
      expect(existsSync(join(data, 'admin.json'))).to.equal(true);
      process.kill(toGroup ? -npm.pid! : npm.pid!, signal);
      await exited;
      expect(out).to.include(`${signal}: draining in-flight requests and stopping`);
      expect(await listening(port)).to.equal(false);
      expect(existsSync(join(data, 'admin.json'))).to.equal(false);
    });
  }
});
