import { loadConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { openKeyStore } from '../../src/keys/store.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { needService, POSTGRES_URL } from '../support/services.js';

/**
 * A test gateway whose key store is the real Postgres: the embedded store's WebAssembly start-up costs seconds per
 * suite on a busy machine, and these suites are about the edge, not the store. Call from `before`.
 */
export async function startOpsGateway(
  ctx: Mocha.Context,
  overrides: Partial<ConfigInput> = {},
  opts: Parameters<typeof startTestGateway>[1] = {},
): Promise<TestGateway> {
  await needService(ctx, 'Postgres', 5432);
  const { keys, plans } = loadConfig({ env: {}, overrides: { keys: { databaseUrl: POSTGRES_URL } } });
  const keyStore = await openKeyStore({ keys, plans });
  try {
    const t = await startTestGateway(overrides, { ...opts, keyStore });
    return { ...t, close: async () => {
      await t.close();
      await keyStore.close();
    } };
  } catch (err) {
    await keyStore.close();
    throw err;
  }
}
