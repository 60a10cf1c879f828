/** Building a relay for tests and calling it the way the edge does. */
import type { Config, LedgerConfig } from '../../src/config/schema.js';
import { createLedgerRelay, type LedgerRelay, type LedgerRelayOptions } from '../../src/relay/ledgerRelay.js';
import type { CallContext } from '../../src/rpc/answer.js';
import type { RpcOutcome } from '../../src/rpc/jsonrpc.js';
import type { LedgerSandbox } from '../../packages/sandbox/src/index.js';

export const RELAY_DEFAULTS: Config['relay'] = {
  latestCacheMs: 0,
  cacheBytes: 8 * 1024 * 1024,
  sharedCacheBytes: 8 * 1024 * 1024,
  sharedCacheTtlMs: 600_000,
  sharedCacheMaxEntryBytes: 1024 * 1024,
  maxLogBlocks: 1_000,
  mirrorTimeoutMs: 2_000,
  mirrorRetries: 2,
  mirrorTotalMs: 5_000,
  subscriptionMaxAddresses: 20,
  batchDisallowedMethods: [],
  sendSyncDefaultMs: 2_000,
  sendSyncMaxMs: 5_000,
  requestIdInErrors: false,
  httpErrorMapping: 'always-200',
  onValidRequestErrorStatus: 400,
};

/** A relay on a ledger sandbox, paying with the sandbox's operator. */
export function sandboxRelay(chainId: number, sandbox: LedgerSandbox, relay: Partial<Config['relay']> = {}): LedgerRelay {
  return testRelay(
    chainId,
    { mirrorUrl: sandbox.mirrorUrl, consensus: sandbox.consensus, operatorId: sandbox.operator.accountId, operatorKey: String(sandbox.operator.privateKey) },
    relay,
  );
}

export function testRelay(
  chainId: number,
  ledger: Partial<LedgerConfig> & { mirrorUrl: string },
  relay: Partial<Config['relay']> = {},
  more: Pick<LedgerRelayOptions, 'sharedCache'> = {},
): LedgerRelay {
  return createLedgerRelay({
    ...more,
    chainId,
    ledger: { consensus: {}, maxGas: 15_000_000, maxFeeTinybar: 2_000_000_000, jumboTransactions: true, ...ledger },
    relay: { ...RELAY_DEFAULTS, ...relay },
  });
}

const ctx = { requestId: 'test' } as CallContext;

/** The outcome as the client reads it: JSON (a final answer the relay keeps as text is parsed back). */
export async function call(relay: LedgerRelay, method: string, params: unknown = []): Promise<RpcOutcome> {
  const [outcome] = await relay.handle([{ id: '1', method, params }], ctx);
  return JSON.parse(JSON.stringify(outcome));
}

/** The result of a call that must succeed. */
export async function result(relay: LedgerRelay, method: string, params: unknown = []): Promise<any> {
  const outcome = await call(relay, method, params);
  if ('error' in outcome) throw new Error(`${method} failed: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.result;
}
