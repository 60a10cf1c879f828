import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { loadConfig } from '../../src/config/load.js';
import { isKnownEnvVar } from '../../scripts/config-reference.js';
import { freePort } from '../support/ports.js';
import { bannerOf, baseImage, buildImage, ensureDebianImage, podman, runContainer, whyNoEngine, type Container } from '../support/container.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(root + path, 'utf8');

/** Compose's `${VAR:-default}` interpolation, with nothing set in the environment. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (_, _name, fallback) => fallback ?? '');
}

type Service = { build?: unknown; image?: string; environment?: Record<string, string> | string[]; volumes?: string[]; depends_on?: Record<string, unknown>; ports?: string[] };

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => [e.split('=')[0], interpolate(e.slice(e.indexOf('=') + 1))]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v))]));
}

describe('container: build context', () => {
  it('leaves tests, local data and secrets out of the build context', () => {
    const ignored = read('.dockerignore').split(/\r?\n/).map((l) => l.trim());
    expect(ignored).to.include.members(['node_modules', '.data', '.git', 'test', '.env']);
  });
});

describe('container: compose.yaml', () => {
  const compose = yaml.load(read('compose.yaml')) as { services: Record<string, Service> };
  const gateways = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);

  it('runs two gateway instances, Redis and Postgres', () => {
    expect(gateways.map(([name]) => name)).to.have.length(2);
    const images = Object.values(compose.services).map((s) => s.image ?? '');
    expect(images.some((i) => i.startsWith('redis'))).to.equal(true);
    expect(images.some((i) => i.startsWith('postgres'))).to.equal(true);
  });

  it("publishes both instances on the host's loopback only, from compose.override.yaml", () => {
    const override = yaml.load(read('compose.override.yaml')) as { services: Record<string, Service> };
    const published = gateways.map(([name]) => override.services[name]?.ports ?? []);
    expect(published.map((p) => p.length)).to.deep.equal([1, 1]);
    for (const port of published.flat()) expect(port).to.match(/^127\.0\.0\.1:\d+:8080$/);
  });

  it('sets only env vars the config schema knows on the gateways', () => {
    for (const [name, service] of gateways) {
      for (const variable of Object.keys(environmentOf(service))) expect(isKnownEnvVar(variable), `${name}: ${variable}`).to.equal(true);
    }
  });

  it('points both instances at the same Postgres key store and the same Redis budget', () => {
    const envs = gateways.map(([, s]) => environmentOf(s));
    const serviceNames = Object.keys(compose.services);
    for (const variable of ['DATABASE_URL', 'REDIS_URL']) {
      const values = new Set(envs.map((e) => e[variable]));
      expect(values.size, `${variable} is the same on both`).to.equal(1);
      const host = new URL([...values][0]).hostname;
      expect(serviceNames, `${variable} names a compose service`).to.include(host);
    }
    expect(new URL(envs[0].DATABASE_URL).protocol).to.equal('postgres:');
    expect(new URL(envs[0].REDIS_URL).protocol).to.equal('redis:');
  });

  it('mounts a config file the gateway accepts with that environment', () => {
    for (const [name, service] of gateways) {
      const env = environmentOf(service);
      const mount = (service.volumes ?? []).map((v) => v.split(':')).find(([, target]) => target === env.GATEWAY_CONFIG);
      expect(mount, `${name} mounts GATEWAY_CONFIG`).to.not.equal(undefined);
      const config = loadConfig({ file: root + mount![0].replace(/^\.\//, ''), env });
      expect(config.keys.databaseUrl).to.equal(env.DATABASE_URL);
      expect(config.limits.redisUrl).to.equal(env.REDIS_URL);
      expect(config.server.host).to.equal('0.0.0.0');
      expect(config.sandbox.enabled).to.equal(false);
    }
  });
});

/** A production config that is healthy with no upstream answering: eth_chainId is answered from the config. */
const PRODUCTION_CONFIG = {
  server: { shutdownGraceMs: 5_000 },
  limits: { quotaFlushMs: 500 },
  chains: { ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: ['http://127.0.0.1:9'] } } } },
};
const STOP_GRACE_S = 20;

async function rpc(url: string, key: string, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: unknown }> {
  const res = await fetch(`${url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as { result?: unknown; error?: unknown };
}

async function quotaUsed(gw: Container, key: string): Promise<number> {
  const res = await fetch(`${gw.base}/usage`, { headers: { 'x-api-key': key } });
  expect(res.status, 'GET /usage').to.equal(200);
  return ((await res.json()) as { quota: { used: number } }).quota.used;
}

/**
 * The working tree's image, built and run with podman: production (a config with upstreams) and sandbox (no config,
 * every network served locally). Skipped where no container engine runs, except under CI=true, where it fails.
 */
describe('container: the image, built and run', function () {
  this.timeout(40 * 60_000);

  before(async function () {
    const reason = await whyNoEngine();
    if (reason && process.env.CI === 'true') throw new Error(`CI must build and run the image, but ${reason}`);
    if (reason) {
      console.warn(`      skipped: ${reason}`);
      this.skip();
    }
    await ensureDebianImage(baseImage(), ['--node']);
  });

  for (const variant of ['production', 'sandbox'] as const) {
    describe(`the ${variant} variant`, () => {
      const name = `gateway-test-${variant}`;
      const volume = `${name}-data`;
      let configDir: string | undefined;
      let gw: Container;
      let flushMs: number;

      before(async () => {
        const image = await buildImage(variant);
        await podman(['volume', 'rm', '--force', volume]);
        if (variant === 'production') {
          configDir = mkdtempSync(path.join(tmpdir(), 'gateway-container-'));
          // Readable by the image's `node` user.
          chmodSync(configDir, 0o755);
          writeFileSync(path.join(configDir, 'gateway.yaml'), yaml.dump(PRODUCTION_CONFIG), { mode: 0o644 });
          gw = await runContainer(image, name, volume, { GATEWAY_CONFIG: '/etc/gateway/gateway.yaml' }, [`${configDir}:/etc/gateway:ro`]);
          flushMs = PRODUCTION_CONFIG.limits.quotaFlushMs;
        } else {
          gw = await runContainer(image, name, volume);
          flushMs = loadConfig({ env: {} }).limits.quotaFlushMs;
        }
        await gw.healthy();
      });

      after(async () => {
        await gw?.remove();
        await podman(['volume', 'rm', '--force', volume]).catch(() => undefined);
        if (configDir) rmSync(configDir, { recursive: true, force: true });
      });

      it('runs the gateway as a non-root user on a /data volume that user owns, and its HEALTHCHECK passes', async () => {
        const status = await podman(['exec', name, 'cat', '/proc/1/status']);
        expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).to.not.equal('0');
        expect(await podman(['exec', name, 'stat', '--format', '%U', '/data'])).to.equal('node');
        await podman(['healthcheck', 'run', name]);
      });

      if (variant === 'production') {
        it('refuses to start without a config, in one line saying that this build has no sandbox', async () => {
          const port = String(await freePort());
          const out = await podman(['run', '--rm', '--network', 'host', '--env', 'HOST=127.0.0.1', '--env', `PORT=${port}`, `localhost/multichain-gateway:test-${variant}`]).then(
            () => 'exited 0',
            // podman's own warnings (time="…" level=warning) come first on the same stream.
            (err: { code?: number; stderr?: string }) => `exit ${err.code}: ${(err.stderr ?? '').split('\n').filter((l) => !l.startsWith('time=')).join('\n')}`,
          );
          expect(out).to.match(/^exit 1: This build has no sandbox: give a config whose networks name their upstreams/);
          expect(out.trim().split('\n')).to.have.length(1);
        });
      }

      if (variant === 'sandbox') {
        it('answers the printed demo key on a ledger and an EVM route', async () => {
          const { key, first, evm } = bannerOf(await gw.logs(), gw.base);
          expect(first).to.include('hedera');
          const block = await rpc(first, key, 'eth_getBlockByNumber', ['latest', false]);
          expect(block.result).to.have.property('number');
          expect(evm, 'the banner names an EVM route').to.be.a('string');
          expect((await rpc(evm!, key, 'eth_chainId')).result).to.match(/^0x[0-9a-f]+$/);
        });
      }

      it(`drains on podman stop and exits 0 within the grace period`, async () => {
        await podman(['stop', '--time', String(STOP_GRACE_S), name], (STOP_GRACE_S + 30) * 1000);
        expect(await podman(['inspect', '--format', '{{.State.ExitCode}}', name])).to.equal('0');
      });

      it(`keeps the key and every request older than limits.quotaFlushMs across kill -9 and a restart`, async () => {
        // Started again after the stop above: a clean restart on the same volume comes first.
        await podman(['start', name]);
        await gw.healthy();
        const { key, evm } = bannerOf(await gw.logs(), gw.base);
        for (let i = 0; i < 3; i++) expect((await rpc(evm!, key, 'eth_chainId')).result).to.be.a('string');
        const used = await quotaUsed(gw, key);
        expect(used).to.be.at.least(3);
        await new Promise((r) => setTimeout(r, 3 * flushMs));
        await podman(['kill', '--signal', 'KILL', name]);
        await podman(['start', name]);
        await gw.healthy();
        expect(await quotaUsed(gw, key)).to.equal(used);
        expect((await rpc(evm!, key, 'eth_chainId')).result).to.be.a('string');
      });
    });
  }
});
