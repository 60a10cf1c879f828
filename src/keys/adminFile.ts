import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive } from './lock.js';

/** Where a running gateway's admin API is, for the keys CLI on the same machine. */
export interface AdminEndpoint {
  url: string;
  token: string;
  pid: number;
}

const FILE = 'admin.json';

/**
 * The gateway holding the embedded store writes its admin URL and token beside it (mode 0600, like the store itself),
 * so `npm run keys` in another terminal finds it with no setup. Returns the remover, called at shutdown; a file left
 * by a crash names a dead pid and is ignored.
 */
export function writeAdminFile(dataDir: string, endpoint: Omit<AdminEndpoint, 'pid'>): () => void {
  const path = join(dataDir, FILE);
  rmSync(path, { force: true });
  writeFileSync(path, JSON.stringify({ ...endpoint, pid: process.pid }), { mode: 0o600, flag: 'wx' });
  return () => rmSync(path, { force: true });
}

/** The running gateway's admin endpoint, or undefined when no live gateway wrote one. */
export function readAdminFile(dataDir: string): AdminEndpoint | undefined {
  let found: AdminEndpoint;
  try {
    found = JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as AdminEndpoint;
  } catch {
    return undefined;
  }
  return typeof found.url === 'string' && typeof found.token === 'string' && alive(found.pid) ? found : undefined;
}
