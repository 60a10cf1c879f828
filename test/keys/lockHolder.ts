/**
 * Helper process for the lock tests: opens the embedded store in argv[2]. With `create`, makes a key, prints it and
 * holds the store until killed; with a key, prints whether the store knows it and exits. A refused open prints the
 * error and exits 1.
 */
import { defaultPlans } from '../../src/config/catalogue.js';
import { configSchema } from '../../src/config/schema.js';
import { hashKey } from '../../src/keys/format.js';
import { openKeyStore } from '../../src/keys/store.js';

const config = configSchema.parse({ chains: {}, plans: defaultPlans(), keys: { dataDir: process.argv[2] } });
let store;
try {
  store = await openKeyStore({ keys: config.keys, plans: config.plans });
} catch (err) {
  process.stdout.write(`${JSON.stringify({ pid: process.pid, refused: (err as Error).message })}\n`);
  process.exit(1);
}
if (process.argv[3] === 'create') {
  const { key } = await store.createKey({ account: { name: 'lock' }, name: 'lock' });
  process.stdout.write(`${JSON.stringify({ pid: process.pid, key })}\n`);
  setInterval(() => {}, 1 << 30);
} else {
  const found = (await store.findByHash(hashKey(process.argv[3]!))) !== undefined;
  await store.close();
  process.stdout.write(`${JSON.stringify({ pid: process.pid, found })}\n`);
}
