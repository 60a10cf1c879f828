/**
 * Builds the gateway's image from the working tree and runs it with podman, the way test/ops/container.test.ts and
 * CI need: host networking bound to loopback (a bridge network reaches addresses beyond loopback), a named volume at
 * /data, and a base image made locally from Debian's packages when no registry can supply it.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Without systemd podman's default cgroup manager fails; runc runs where crun is missing. */
export const PODMAN_FLAGS = ['--cgroup-manager=cgroupfs', '--runtime', 'runc'];
const BUILD_TIMEOUT_MS = 30 * 60_000;

export async function podman(args: string[], timeout = 120_000): Promise<string> {
  const { stdout } = await run('podman', [...PODMAN_FLAGS, ...args], { cwd: ROOT, timeout, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** Why no container can run here, or undefined when podman can run one. */
export async function whyNoEngine(): Promise<string | undefined> {
  try {
    await podman(['info', '--format', '{{.Host.OCIRuntime.Name}}'], 30_000);
    return undefined;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') return 'podman is not installed (.ci/run installs podman, runc and mmdebstrap)';
    return `podman cannot run containers here: ${(e.stderr ?? e.message).trim().split('\n').pop()}`;
  }
}

/** The Dockerfile's default base image (ARG BASE=…), as podman names it. */
export function baseImage(): string {
  const base = /^ARG BASE=(\S+)/m.exec(readFileSync(ROOT + 'Dockerfile', 'utf8'))?.[1];
  if (!base) throw new Error('the Dockerfile declares no ARG BASE default');
  return base.includes('/') ? base : `docker.io/library/${base}`;
}

/** An image from Debian's packages (ops/container/debian-image.sh) under `tag`, unless one is there already. */
export async function ensureDebianImage(tag: string, args: string[]): Promise<void> {
  const exists = await podman(['image', 'exists', tag]).then(() => true, () => false);
  if (!exists) await run(ROOT + 'ops/container/debian-image.sh', [tag, ...args], { timeout: BUILD_TIMEOUT_MS });
}

/** npm's settings and CA file, mounted at the same paths for the build's `npm ci` (never copied into a layer). */
async function npmMounts(): Promise<string[]> {
  const files = await Promise.all(['userconfig', 'globalconfig', 'cafile'].map(async (k) => (await run('npm', ['config', 'get', k])).stdout.trim()));
  return files.filter((f) => f && f !== 'null' && existsSync(f)).flatMap((f) => ['--volume', `${f}:${f}:ro`]);
}

/** Builds the working tree's image for `variant` (the Dockerfile's VARIANT) and returns its tag. */
export async function buildImage(variant: 'production' | 'sandbox'): Promise<string> {
  const tag = `localhost/multichain-gateway:test-${variant}`;
  await podman(
    ['build', '--format', 'docker', '--pull=never', '--network', 'host', ...(await npmMounts()), '--build-arg', `VARIANT=${variant}`, '--tag', tag, '.'],
    BUILD_TIMEOUT_MS,
  );
  return tag;
}

export interface Container {
  name: string;
  /** http://127.0.0.1:<port> */
  base: string;
  /** The gateway's output so far. */
  logs(): Promise<string>;
  /** Resolves once /healthz answers 200. */
  healthy(): Promise<void>;
  remove(): Promise<void>;
}

/** Runs `image` on host networking, listening on loopback only, with the named volume `volume` at /data. */
export async function runContainer(image: string, name: string, volume: string, env: Record<string, string> = {}, mounts: string[] = []): Promise<Container> {
  const port = await freePort();
  const privatePort = await freePort();
  const settings = { HOST: '127.0.0.1', PORT: String(port), PRIVATE_HOST: '127.0.0.1', PRIVATE_PORT: String(privatePort), ...env };
  await podman(['rm', '--force', '--ignore', name]);
  await podman([
    'run', '--detach', '--name', name, '--network', 'host', '--volume', `${volume}:/data`,
    ...mounts.flatMap((m) => ['--volume', m]),
    ...Object.entries(settings).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    image,
  ]);
  const base = `http://127.0.0.1:${port}`;
  const logs = async () => {
    const { stdout, stderr } = await run('podman', [...PODMAN_FLAGS, 'logs', name], { maxBuffer: 64 * 1024 * 1024 });
    return stdout + stderr;
  };
  return {
    name,
    base,
    logs,
    healthy: async () => {
      for (let attempt = 0; attempt < 600; attempt++) {
        const ok = await fetch(`${base}/healthz`).then((r) => r.ok, () => false);
        if (ok) return;
        const state = await podman(['inspect', '--format', '{{.State.Status}}', name]);
        if (state === 'exited') throw new Error(`${name} exited before it was healthy: ${(await logs()).trim().split('\n').slice(-3).join(' | ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${name} never answered /healthz`);
    },
    remove: async () => {
      await podman(['rm', '--force', '--ignore', name]);
    },
  };
}

/** The demo key and example URLs the gateway printed at start (src/main.ts's banner), on 127.0.0.1. */
export function bannerOf(logs: string, base: string): { key: string; first: string; evm?: string } {
  const local = (url: string) => url.replace(/^http:\/\/localhost:\d+/, base);
  const key = /Demo API key:\s+(\S+)/.exec(logs)?.[1];
  const first = /curl -s (\S+)\/rpc -H 'X-API-KEY/.exec(logs)?.[1];
  if (!key || !first) throw new Error('no demo key in the banner');
  const evm = /EVM:\s+(\S+)\/rpc/.exec(logs)?.[1];
  return { key, first: local(first), evm: evm && local(evm) };
}
