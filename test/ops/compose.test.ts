import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { buildImage, ensureDebianImage, baseImage, podman, PODMAN_FLAGS, whyNoEngine } from '../support/container.js';
import { freePort } from '../support/ports.js';

const run = promisify(execFile);
const PROJECT = 'gateway-compose-test';
const FILES = ['-f', 'compose.yaml', '-f', 'ops/compose.offline.yaml'];
const SANDBOX_IMAGE = 'localhost/multichain-gateway:sandbox';

async function composeMissing(): Promise<string | undefined> {
  const engine = await whyNoEngine();
  if (engine) return engine;
  return run('docker-compose', ['version']).then(
    () => undefined,
    () => 'docker-compose is not installed (.ci/run installs it from Debian)',
  );
}

async function rpc(base: string, key: string, method: string): Promise<{ status: number; body: { result?: unknown; error?: { message: string } } }> {
  const res = await fetch(`${base}/hedera-testnet/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  });
  return { status: res.status, body: (await res.json()) as { result?: unknown; error?: { message: string } } };
}

async function quotaUsed(base: string, key: string): Promise<number> {
  const res = await fetch(`${base}/usage`, { headers: { 'x-api-key': key } });
  expect(res.status, 'GET /usage').to.equal(200);
  return ((await res.json()) as { quota: { used: number } }).quota.used;
}

/** Resolves once podman's Docker-compatible API answers on `socket`. */
async function apiAnswers(socket: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const ok = await new Promise<boolean>((done) => {
      http.get({ socketPath: socket, path: '/_ping' }, (res) => done(res.resume().statusCode === 200)).on('error', () => done(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`podman system service never answered on ${socket}`);
}

async function healthy(base: string): Promise<void> {
  for (let attempt = 0; attempt < 1_200; attempt++) {
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base} never answered /healthz`);
}

/**
 * compose.yaml as its comments say to run it: two gateway instances on one Postgres key store and one Redis budget,
 * with ops/compose.offline.yaml for a machine with no internet and no registry. Debian's docker-compose drives podman
 * through its Docker-compatible API. Skipped where either is missing, except under CI=true, where it fails.
 */
describe('compose: two instances on one Postgres and one Redis, offline', function () {
  this.timeout(40 * 60_000);
  const env: Record<string, string> = {};
  let dir: string;
  let service: ChildProcess | undefined;
  let a: string;
  let b: string;

  const compose = async (args: string[], timeout = 5 * 60_000) => {
    const { stdout } = await run('docker-compose', ['--project-name', PROJECT, ...FILES, ...args], { env: { ...process.env, ...env }, timeout, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim();
  };

  /**
   * Without systemd podman schedules no health checks, and compose waits on `service_healthy`; this plays the timer
   * that systemd would, for the project's containers, until `until` settles.
   */
  async function runHealthChecks(until: Promise<unknown>): Promise<void> {
    let done = false;
    void until.finally(() => (done = true)).catch(() => undefined);
    while (!done) {
      const names = await podman(['ps', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.Names}}']).catch(() => '');
      await Promise.all(names.split('\n').filter(Boolean).map((name) => podman(['healthcheck', 'run', name]).catch(() => undefined)));
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }

  const containerOf = (service: string) =>
    podman(['ps', '--all', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--filter', `label=com.docker.compose.service=${service}`, '--format', '{{.Names}}']);

  async function up(): Promise<void> {
    const started = compose(['up', '--no-build', '--detach'], 15 * 60_000);
    await Promise.all([started, runHealthChecks(started)]);
    await Promise.all([healthy(a), healthy(b)]);
  }

  before(async function () {
    const reason = await composeMissing();
    if (reason && process.env.CI === 'true') throw new Error(`CI must run compose, but ${reason}`);
    if (reason) {
      console.warn(`      skipped: ${reason}`);
      this.skip();
    }
    await ensureDebianImage(baseImage(), ['--node']);
    await ensureDebianImage('localhost/debian-postgres:15', ['postgresql-15']);
    await ensureDebianImage('localhost/debian-redis:7', ['redis-server']);
    await podman(['tag', await buildImage('sandbox'), SANDBOX_IMAGE]);

    dir = mkdtempSync(path.join(tmpdir(), 'gateway-compose-'));
    const socket = path.join(dir, 'podman.sock');
    service = spawn('podman', [...PODMAN_FLAGS, 'system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore' });
    env.DOCKER_HOST = `unix://${socket}`;
    for (const name of ['COMPOSE_A_PORT', 'COMPOSE_B_PORT', 'COMPOSE_A_PRIVATE_PORT', 'COMPOSE_B_PRIVATE_PORT', 'COMPOSE_PG_PORT', 'COMPOSE_REDIS_PORT']) {
      env[name] = String(await freePort());
    }
    a = `http://127.0.0.1:${env.COMPOSE_A_PORT}`;
    b = `http://127.0.0.1:${env.COMPOSE_B_PORT}`;
    await apiAnswers(socket);
    await compose(['down', '--volumes', '--remove-orphans']).catch(() => undefined);
    await up();
  });

  after(async () => {
    if (env.DOCKER_HOST) await compose(['down', '--volumes', '--remove-orphans']).catch(() => undefined);
    service?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let key: string;

  it('creates a key with the hint compose.yaml gives, and both instances accept it', async () => {
    const printed = await compose(['exec', '-T', 'gateway-a', 'node', 'dist/keys/cli.js', 'create', '--name', 'acme', '--plan', 'developer', '--network', 'testnet']);
    key = printed.trim().split('\n').pop()!.trim();
    expect(key).to.match(/^\S{20,}$/);
    for (const base of [a, b]) {
      const { status, body } = await rpc(base, key, 'eth_chainId');
      expect(status, base).to.equal(200);
      expect(body.result, base).to.equal('0x128');
    }
  });

  it("counts the key's requests on either instance against one quota, within limits.quotaFlushMs", async () => {
    // /usage reads the key store, which each instance brings up to date every limits.quotaFlushMs (1 s by default).
    const flushed = () => new Promise((r) => setTimeout(r, 3_000));
    await flushed();
    const before = await quotaUsed(a, key);
    for (let i = 0; i < 5; i++) await rpc(a, key, 'eth_chainId');
    for (let i = 0; i < 5; i++) await rpc(b, key, 'eth_chainId');
    await flushed();
    // Reading /usage is not charged: the count is exactly the ten calls, made on both instances.
    expect(await quotaUsed(b, key)).to.equal(before + 10);
  });

  it('brings back an instance whose process is killed (as by the OOM killer) through its restart policy, on the same key store', async () => {
    const name = await containerOf('gateway-a');
    const pid = Number(await podman(['inspect', '--format', '{{.State.Pid}}', name]));
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    await healthy(a);
    expect(await podman(['inspect', '--format', '{{.RestartCount}}', name])).to.equal('1');
    expect((await rpc(a, key, 'eth_chainId')).body.result).to.equal('0x128');
  });

  it('stops both instances within the grace period, each exiting 0', async () => {
    await compose(['stop', 'gateway-a', 'gateway-b'], 2 * 60_000);
    for (const service of ['gateway-a', 'gateway-b']) {
      expect(await podman(['inspect', '--format', '{{.State.ExitCode}}', await containerOf(service)]), service).to.equal('0');
    }
  });
});
