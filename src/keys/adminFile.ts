import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDirHeld } from './lock.js';

/** Where a running gateway's admin API is, for the keys CLI on the same machine. */
export interface AdminEndpoint {
  url: string;
  token: string;
}

const FILE = 'admin.json';

/**
 * The gateway holding the embedded store writes its admin URL and token beside it (mode 0600, like the store itself),
 * so `npm run keys` in another terminal finds it with no setup. Returns the remover, called at shutdown; a file left
 * by a crash is ignored, as nothing holds the data directory's lock any more (a pid would not tell: pids are reused,
 * and in a container the gateway is pid 1 on every start).
 */
export function writeAdminFile(dataDir: string, endpoint: AdminEndpoint): () => void {
  const path = join(dataDir, FILE);
  rmSync(path, { force: true });
  writeFileSync(path, JSON.stringify(endpoint), { mode: 0o600, flag: 'wx' });
  return () => rmSync(path, { force: true });
}

/** The running gateway's admin endpoint, or undefined when no live gateway wrote one. */
export async function readAdminFile(dataDir: string): Promise<AdminEndpoint | undefined> {
  let found: AdminEndpoint;
  try {
    found = JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as AdminEndpoint;
  } catch {
    return undefined;
  }
  return typeof found.url === 'string' && typeof found.token === 'string' && (await dataDirHeld(dataDir)) ? found : undefined;
}
