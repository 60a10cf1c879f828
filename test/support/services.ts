import net from 'node:net';

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
