import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresSchema } from '../support/keyStores.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { needService } from '../support/services.js';

const TOKEN = 'operator-token-for-tests-0123456789';
const CACHE_TTL_MS = 400;
const ROOT = join(import.meta.dirname, '../..');

const status = async (base: string, key: string) =>
  (
    await fetch(`${base}/ethereum-sepolia/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
  ).status;

/** The verifier's bound, plus a margin for the request that is in flight when it ends. */
const waitBound = () => new Promise((r) => setTimeout(r, CACHE_TTL_MS + 100));

describe('revocation through the admin API reaches every instance within the key cache bound', () => {
  describe('two gateways on one Postgres store', () => {
    let schema: Awaited<ReturnType<typeof postgresSchema>> | undefined;
    const gateways: TestGateway[] = [];

    before(async function () {
      await needService(this, 'Postgres', 5432);
      schema = await postgresSchema();
      for (let i = 0; i < 2; i++) {
        gateways.push(await startTestGateway({ admin: { token: TOKEN }, keys: { databaseUrl: schema.url, cacheTtlMs: CACHE_TTL_MS, demoKey: false } }));
      }
    });
    after(async () => {
      for (const g of gateways) await g.close();
      await schema?.drop();
    });

    it('a key created on one and revoked on the other is refused by both', async () => {
      const [a, b] = gateways.map((g) => g.gw);
      const call = (gw: typeof a, method: string, path: string) =>
        fetch(`${gw.adminUrl}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: method === 'POST' && path === '/keys' ? JSON.stringify({ name: 'shared' }) : undefined });
      const { key, record } = await (await call(a, 'POST', '/keys')).json();
      // Both instances have verified (and cached) the key before it is revoked.
      expect([await status(a.url, key), await status(b.url, key)]).to.deep.equal([200, 200]);
      expect((await call(b, 'POST', `/keys/${record.id}/revoke`)).status).to.equal(200);
      // The instance that revoked it refuses it at once; the other within its cache bound.
      expect(await status(b.url, key)).to.equal(401);
      await waitBound();
      expect([await status(a.url, key), await status(b.url, key)]).to.deep.equal([401, 401]);
    });
  });

  describe('npm start on the embedded store, and the keys CLI in another terminal', function () {
    // A whole gateway process on a fresh embedded store, and CLI processes beside it: slow on a loaded machine.
    this.timeout(300_000);
    const dataDir = mkdtempSync(join(tmpdir(), 'keys-running-'));
    const env = { ...process.env, PORT: '0', DATA_DIR: dataDir, GATEWAY_CONFIG: '', DATABASE_URL: '', REDIS_URL: '', ADMIN_TOKEN: '', ADMIN_URL: '', LOG_LEVEL: 'silent', KEY_CACHE_TTL_MS: String(CACHE_TTL_MS) };
    let gateway: ReturnType<typeof spawn> | undefined;
    let base = '';

    const keys = (...args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) => {
        execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'src/keys/cli.ts'), ...args], { env, cwd: ROOT }, (error, out, err) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
        );
      });

    before(async () => {
      gateway = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      gateway.stdout!.setEncoding('utf8');
      await new Promise<void>((resolve) => {
        gateway!.stdout!.on('data', (chunk: string) => {
          out += chunk;
          if (/Admin API:.*\n/.test(out) && /Gateway:\s+\S+/.test(out)) resolve();
        });
        gateway!.once('exit', () => resolve());
      });
      base = /Gateway:\s+(\S+)/.exec(out)?.[1] ?? '';
      expect(out).to.match(/Admin API:\s+http:\/\/127\.0\.0\.1:\d+\/admin\/v1/);
    });
    after(async () => {
      if (gateway && gateway.exitCode === null) {
        gateway.kill('SIGTERM');
        await once(gateway, 'exit');
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('hands the CLI its admin URL and token in a file only its owner can read', () => {
      expect(statSync(join(dataDir, 'admin.json')).mode & 0o777).to.equal(0o600);
    });

    it('creates, lists and revokes keys while the gateway runs; the revoked key is refused within the bound', async () => {
      const created = await keys('create', '--name', 'second-terminal', '--plan', 'developer');
      expect(created.code, created.err).to.equal(0);
      expect(created.err).to.include("through the running gateway's admin API");
      const id = /^id:\s+(key_\w+)/m.exec(created.out)?.[1] ?? '';
      const key = /^(pk_prod_[A-Za-z0-9_-]+)$/m.exec(created.out)?.[1] ?? '';
      expect(await status(base, key)).to.equal(200);

      const list = await keys('list');
      expect(list.code, list.err).to.equal(0);
      expect(list.out).to.include(id).and.include('demo');

      const revoked = await keys('revoke', id);
      expect(revoked.code, revoked.err).to.equal(0);
      expect(revoked.out).to.match(/status:\s+revoked/);
      await waitBound();
      expect(await status(base, key)).to.equal(401);
    });

    it('removes the file at shutdown, and the CLI then opens the store itself', async () => {
      gateway!.kill('SIGTERM');
      const [code] = await once(gateway!, 'exit');
      expect(code).to.equal(0);
      expect(existsSync(join(dataDir, 'admin.json'))).to.equal(false);
      const list = await keys('list');
      expect(list.code, list.err).to.equal(0);
      expect(list.err).not.to.include('admin API');
      expect(list.out).to.include('second-terminal').and.include('revoked');
    });
  });
});
