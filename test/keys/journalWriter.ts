/**
 * Helper process for the crash test: opens the embedded store in argv[2] and keeps changing it, printing each change
 * only after the store answered it, until it is killed.
 */
import { defaultPlans } from '../../src/config/catalogue.js';
import { configSchema } from '../../src/config/schema.js';
import { openKeyStore } from '../../src/keys/store.js';

const config = configSchema.parse({ chains: {}, plans: defaultPlans(), keys: { dataDir: process.argv[2] } });
const store = await openKeyStore({ keys: config.keys, plans: config.plans });
for (let n = 1; ; n++) {
  const { key } = await store.createKey({ account: { name: `a${n}` }, name: `k${n}` });
  await store.addUsage([{ keyId: 'key_crash', hour: Date.parse('2026-01-01T00:00:00Z'), api: 'rpc', network: 'ethereum', outcome: 'ok', count: 1 }]);
  process.stdout.write(`${key} ${n}\n`);
}
