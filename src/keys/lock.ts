import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayError } from '../errors.js';

/**
 * The embedded store is one process's journal: a second process appending to the same file would corrupt it. A pid file makes
 * the second opener (say, the keys CLI while the gateway runs) fail with a clear message instead.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'keys.lock');
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(path, 'utf8'));
      if (holder && alive(holder)) {
        throw new GatewayError(
          'KEY_STORE_LOCKED',
          `process ${holder} holds ${dataDir}; stop it first, or share a Postgres store between processes with DATABASE_URL`,
        );
      }
      rmSync(path, { force: true });
    }
  }
}

/** True while a process with this pid runs (EPERM: it runs, as another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
