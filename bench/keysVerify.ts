/**
 * What key verification costs per request with a warm cache (extraction, hashing, the cache look-up), against the
 * SHA-256 it cannot avoid and a store query on a cold cache. Part of `npm run bench`; reports, asserts nothing.
 * With DATABASE_URL set it measures the Postgres store, otherwise the in-memory store.
 */
import { defaultPlans } from '../src/config/catalogue.js';
import { configSchema } from '../src/config/schema.js';
import { extractKey } from '../src/keys/extract.js';
import { generateKey, hashKey } from '../src/keys/format.js';
import { openKeyStore } from '../src/keys/store.js';
import { createKeyVerifier } from '../src/keys/verifier.js';

const WARM_ROUNDS = 200_000;
const COLD_ROUNDS = 500;

export interface VerificationCost {
  store: string;
  hashNs: number;
  warmNs: number;
  coldNs: number;
}

function nsPer(rounds: number, started: bigint): number {
  return Number(process.hrtime.bigint() - started) / rounds;
}

export async function measureKeyVerification(): Promise<VerificationCost> {
  const { keys, plans } = configSchema.parse({
    chains: {},
    plans: defaultPlans(),
    keys: { dataDir: process.env.DATABASE_URL ? undefined : 'memory://', databaseUrl: process.env.DATABASE_URL },
  });
  const store = await openKeyStore({ keys, plans });
  const account = await store.createAccount({ name: 'bench' });
  const { key } = await store.createKey({ accountId: account.id, name: 'bench' });
  const verifier = createKeyVerifier(store, keys, plans);
  const headers = { 'x-api-key': key };

  let started = process.hrtime.bigint();
  for (let i = 0; i < WARM_ROUNDS; i++) hashKey(key);
  const hashNs = nsPer(WARM_ROUNDS, started);

  await verifier.verify(key);
  started = process.hrtime.bigint();
  for (let i = 0; i < WARM_ROUNDS; i++) {
    const raw = extractKey(headers);
    if (!(await verifier.verify(raw!))) throw new Error('key refused');
  }
  const warmNs = nsPer(WARM_ROUNDS, started);

  started = process.hrtime.bigint();
  for (let i = 0; i < COLD_ROUNDS; i++) await store.findByHash(hashKey(generateKey()));
  const coldNs = nsPer(COLD_ROUNDS, started);
  await store.close();
  return { store: store.kind, hashNs, warmNs, coldNs };
}
