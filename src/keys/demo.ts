import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashKey } from './format.js';
import type { KeyStore } from './store.js';

const DEMO_KEY_FILE = 'demo-key';

/**
 * The local-development demo key (plan `developer`, flag `relay_beta`): created once, then read back on every start
 * from a 0600 file beside the embedded store, and created again if it was revoked or the store was wiped. Never for a
 * Postgres store, whose keys belong to an operator; a `memory://` store gets a fresh one each time it is opened.
 */
export async function ensureDemoKey(store: KeyStore, dataDir: string): Promise<string | undefined> {
  if (store.kind === 'postgres') return undefined;
  const file = store.kind === 'embedded' ? join(dataDir, DEMO_KEY_FILE) : undefined;
  const kept = file ? readKept(file) : undefined;
  if (kept) {
    const stored = await store.findByHash(hashKey(kept));
    if (stored && stored.revokedAt === null) return kept;
  }
  const { key } = await store.createKey({ account: { name: 'Local demo' }, name: 'demo', plan: 'developer', network: 'testnet', flags: ['relay_beta'] });
  if (file) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    // `mode` applies only when the file is new; a replaced key must not inherit looser permissions.
    chmodSync(file, 0o600);
  }
  return key;
}

function readKept(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
