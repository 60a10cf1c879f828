/**
 * The two relays under test, both on the same sandbox: the official relay's build (its `dist/index.js`) and our
 * gateway's build (`dist/main.js`), each in its own process.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { freePort, start, type Started } from './processes.js';
import type { SandboxInfo } from './sandbox.js';
import { OFFICIAL_BATCH_DISALLOWED_METHODS } from '../../src/config/schema.js';

export type RelayName = 'official' | 'ours';

export interface RelayUnderTest {
  name: RelayName;
  /** Where JSON-RPC over HTTP is answered (any path for the official relay; the key's path on ours). */
  httpUrl: string;
  wsUrl: string;
  process: Started;
  /** Settings the relay was started with that a reader of the results should know. */
  notes: string[];
}

const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * The official relay's settings: the suites' own local-acceptance file (tests/server/localAcceptance.env, which their
 * CI copies to .env), with the sandbox's network, mirror node and operator, its WebSocket server on, and what must
 * not be shared with other processes off (Redis, heap snapshots); then `settings` (`--official-setting KEY=VALUE`)
 * over all of them. A suite that changes the relay's settings for one group of tests (`overrideEnvsInMochaDescribe`,
 * such as sendRawTransactionExtension's `ENABLE_NONCE_ORDERING` for its @nonce-ordering group) changes them only in
 * its own process, which a relay in another process never sees: `settings` is how such a group runs as it asks.
 */
export function officialRelayEnv(
  acceptanceEnv: Record<string, string>,
  sb: SandboxInfo,
  httpPort: number,
  wsPort: number,
  settings: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    ...acceptanceEnv,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    npm_package_version: '0.80.0-SNAPSHOT',
    CHAIN_ID: hex(sb.chainId),
    HEDERA_NETWORK: JSON.stringify({ [sb.consensus]: '0.0.3' }),
    MIRROR_NODE_URL: sb.mirrorOrigin,
    MIRROR_NODE_URL_WEB3: sb.mirrorOrigin,
    OPERATOR_ID_MAIN: sb.operatorId,
    OPERATOR_KEY_MAIN: sb.operatorKey,
    OPERATOR_KEY_FORMAT: 'DER',
    RATE_LIMIT_DISABLED: 'true',
    DEBUG_API_ENABLED: 'true',
    REDIS_ENABLED: 'false',
    MEMWATCH_ENABLED: 'false',
    RPC_WS_ENABLED: 'true',
    SUBSCRIPTIONS_ENABLED: 'true',
    // The relay's default, and what our gateway does. The local-acceptance file turns it off because its suites run the
    // relay in their own process and turn it on per test; a relay in another process keeps one setting.
    WS_NEW_HEADS_ENABLED: 'true',
    PRETTY_LOGS_ENABLED: 'false',
    SERVER_HOST: '127.0.0.1',
    SERVER_PORT: String(httpPort),
    WEB_SOCKET_PORT: String(wsPort),
    ...settings,
  };
}

export async function startOfficialRelay(
  relayDir: string,
  acceptanceEnv: Record<string, string>,
  sb: SandboxInfo,
  logDir: string,
  settings: Record<string, string> = {},
): Promise<RelayUnderTest> {
  const [httpPort, wsPort] = [await freePort(), await freePort()];
  const env = officialRelayEnv(acceptanceEnv, sb, httpPort, wsPort, settings);
  const proc = start(process.execPath, ['dist/index.js'], { cwd: relayDir, env, logFile: path.join(logDir, 'official-relay.log') });
  await proc.waitFor(/WebSocket server listening/, 120_000).catch(async (err) => {
    await proc.stop();
    throw err;
  });
  const notes = ['debug API on, rate limits off, settings of tests/server/localAcceptance.env, newHeads on', ...Object.entries(settings).map(([k, v]) => `${k}=${v}`)];
  return { name: 'official', httpUrl: `http://127.0.0.1:${httpPort}`, wsUrl: `ws://127.0.0.1:${wsPort}`, process: proc, notes };
}

/**
 * Our gateway's config for the suites: only the sandbox's network, a plan without limits and with the debug methods
 * open, and the official relay's HTTP status mapping when this build has the setting (an unknown setting would be
 * dropped silently, so whether it survives validation is what tells).
 */
export function gatewayConfig(sb: SandboxInfo, ports: { public: number; private: number }, dataDir: string, officialStatuses: boolean): Record<string, unknown> {
  const unlimited = 1e9;
  return {
    server: { port: ports.public, host: '127.0.0.1' },
    private: { port: ports.private },
    chains: {
      hedera: {
        kind: 'ledger',
        displayName: 'Hedera',
        networks: {
          testnet: {
            chainId: sb.chainId,
            apis: ['rpc'],
            ledger: { mirrorUrl: sb.mirrorOrigin, consensus: { [sb.consensus]: '0.0.3' }, operatorId: sb.operatorId, operatorKey: sb.operatorKey },
          },
        },
      },
    },
    // The demo key's plan: it is made at start-up and printed, so the runner needs no key tooling.
    plans: {
      developer: {
        requestsPerSecond: unlimited,
        monthlyQuota: 1e15,
        apis: ['rpc'],
        debugMethods: true,
        maxFilters: 10_000,
        maxSockets: 10_000,
        maxSubscriptionsPerSocket: 10_000,
        // The official side runs with HBAR rate limits off; the default 50 HBAR per key runs out a few suites in.
        hbarPerKeyTinybar: Number.MAX_SAFE_INTEGER,
      },
    },
    keys: { dataDir, demoKey: true },
    limits: { relayPlans: ['developer'], writesPerSecond: unlimited, keylessPerSecond: unlimited },
    sandbox: { enabled: false },
    log: { level: 'info' },
    // The official relay's defaults, as its side runs with them: its HTTP statuses, `[Request ID: <id>]` before each
    // error message, and its BATCH_REQUESTS_DISALLOWED_METHODS.
    ...(officialStatuses ? { relay: { httpErrorMapping: 'official', requestIdInErrors: true, batchDisallowedMethods: OFFICIAL_BATCH_DISALLOWED_METHODS } } : {}),
  };
}

/** Whether this build's config schema keeps `relay.httpErrorMapping: "official"`. */
function acceptsOfficialStatuses(file: string, config: Record<string, unknown>): boolean {
  writeFileSync(file, JSON.stringify(config, null, 2));
  try {
    return (loadConfig({ file, env: {} }).relay as Record<string, unknown>).httpErrorMapping === 'official';
  } catch {
    return false;
  }
}

export async function startOurGateway(repo: string, sb: SandboxInfo, scratchDir: string, logDir: string): Promise<RelayUnderTest> {
  const ports = { public: await freePort(), private: await freePort() };
  const port = ports.public;
  const dataDir = path.join(scratchDir, 'gateway-data');
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(scratchDir, 'gateway-config.json');
  const officialStatuses = acceptsOfficialStatuses(file, gatewayConfig(sb, ports, dataDir, true));
  writeFileSync(file, JSON.stringify(gatewayConfig(sb, ports, dataDir, officialStatuses), null, 2));
  const proc = start(process.execPath, ['dist/main.js'], {
    cwd: repo,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GATEWAY_CONFIG: file },
    logFile: path.join(logDir, 'our-gateway.log'),
  });
  const m = await proc.waitFor(/Demo API key:\s+(\S+)/, 120_000).catch(async (err) => {
    await proc.stop();
    throw err;
  });
  const key = m[1];
  const route = `127.0.0.1:${port}/hedera-testnet/v1/${key}/rpc`;
  return {
    name: 'ours',
    httpUrl: `http://${route}`,
    wsUrl: `ws://${route}`,
    process: proc,
    notes: [
      `config ${file}: plan without limits, debug methods open`,
      officialStatuses ? 'relay.httpErrorMapping: "official"' : 'relay.httpErrorMapping: not in this build, so HTTP 200 for JSON-RPC errors',
    ],
  };
}
