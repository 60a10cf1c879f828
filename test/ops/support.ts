import { loadConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { openKeyStore } from '../../src/keys/store.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { POSTGRES_URL, reachable } from '../support/services.js';

/**
 * A test gateway whose key store is the real Postgres when it runs here (CI requires it): the embedded store's
 * WebAssembly start-up costs tens of seconds on a busy machine, and these suites are about the edge, not the store.
 * Without Postgres it falls back to the shared embedded store of the test helper.
 */
export async function startOpsGateway(overrides: Partial<ConfigInput> = {}, opts: Parameters<typeof startTestGateway>[1] = {}): Promise<TestGateway> {
  if (!(await reachable(5432))) {
    if (process.env.CI === 'true') throw new Error('Postgres is not reachable on 127.0.0.1:5432; CI requires it');
    return startTestGateway(overrides, opts);
  }
  const { keys, plans } = loadConfig({ env: {}, overrides: { keys: { databaseUrl: POSTGRES_URL } } });
  const keyStore = await openKeyStore({ keys, plans });
  try {
    // `keys` in the overrides keeps the helper from opening its embedded store; the gateway uses this one.
    const t = await startTestGateway({ ...overrides, keys: { databaseUrl: POSTGRES_URL, ...overrides.keys } }, { ...opts, keyStore });
    return {
      ...t,
      close: async () => {
        await t.close();
        await keyStore.close();
      },
    };
  } catch (err) {
    await keyStore.close();
    throw err;
  }
}
