/**
 * `npx tsx bench/keysVerify.ts`: what key verification costs per request with a warm cache (extraction, hashing,
 * the cache look-up), against the cost of a store query on a cold cache. Reports; asserts nothing.
 */
import { defaultPlans } from '../src/config/catalogue.js';
import { configSchema } from '../src/config/schema.js';
import { extractKey } from '../src/keys/extract.js';
import { generateKey, hashKey } from '../src/keys/format.js';
import { openKeyStore } from '../src/keys/store.js';
import { createKeyVerifier } from '../src/keys/verifier.js';

const WARM_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 500_000);
const COLD_ROUNDS = 500;

const { keys, plans } = configSchema.parse({ chains: {}, plans: defaultPlans(), keys: { dataDir: process.env.DATABASE_URL ? undefined : 'memory://', databaseUrl: process.env.DATABASE_URL } });
const store = await openKeyStore({ keys, plans });
const account = await store.createAccount({ name: 'bench' });
const { key } = await store.createKey({ accountId: account.id, name: 'bench' });
const verifier = createKeyVerifier(store, keys, plans);
const headers = { 'x-api-key': key };

function nsPer(rounds: number, started: bigint): number {
  return Number(process.hrtime.bigint() - started) / rounds;
}

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

const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
console.log(`store: ${store.kind}`);
console.log(`SHA-256 of a key:                       ${us(hashNs)}`);
console.log(`extract + verify, warm cache:           ${us(warmNs)} per request (${Math.round(1e9 / warmNs).toLocaleString()} per second on one core)`);
console.log(`store look-up by hash (cold cache):     ${us(coldNs)}`);
