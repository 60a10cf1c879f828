/**
 * Run by lazyModules.test.ts under the load recorder: a gateway without the sandbox, idle and then once each API has
 * been used. Prints the packages loaded at each point, and the status of each first request, as one JSON line. With
 * the argument `sandbox`: `npm start`'s configuration (the sandbox serves every network), idle.
 */
import { readFileSync } from 'node:fs';
import { startGateway } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';

const NOWHERE = 'http://127.0.0.1:9/';
const config = loadConfig({
  env: {},
  overrides: {
    server: { port: 0 },
    keys: { dataDir: 'memory://', demoKey: false },
    sandbox: { enabled: false },
    log: { level: 'silent' },
    chains: {
      hedera: {
        kind: 'ledger',
        displayName: 'Hedera',
        networks: { mainnet: { chainId: 295, apis: ['rpc'], ledger: { mirrorUrl: NOWHERE, consensus: { '127.0.0.1:9': '0.0.3' }, operatorId: '0.0.2', operatorKey: '11'.repeat(32) } } },
      },
      ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: [NOWHERE] } } },
    },
  },
});

/** Package names (`@scope/name` or `name`, with the file's path for graphql and ethers) of every module loaded so far. */
function packages(): string[] {
  const found = new Set<string>();
  for (const url of readFileSync(process.env.LOADED_MODULES_FILE!, 'utf8').split('\n')) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
    if (m) found.add(m[1] === 'graphql' || m[1] === 'ethers' ? `${m[1]}/${m[2]}` : m[1]);
  }
  return [...found].sort();
}

if (process.argv[2] === 'sandbox') {
  const gw = await startGateway(loadConfig({ env: {}, overrides: { server: { port: 0 }, keys: { dataDir: 'memory://' }, log: { level: 'silent' } } }));
  const idle = packages();
  await gw.close();
  process.stdout.write(`${JSON.stringify({ idle })}\n`);
  process.exit(0);
}

const gw = await startGateway(config);
const account = await gw.keyStore.createAccount({ name: 'lazy' });
const { key } = await gw.keyStore.createKey({ accountId: account.id, name: 'lazy', plan: 'enterprise', flags: ['relay_beta'] });
const status = async (path: string, init: RequestInit = {}) => (await fetch(`${gw.url}${path}`, init)).status;
const rpc = (network: string) =>
  status(`/${network}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });

// A ledger read builds the network's relay, with its (unused) consensus client.
const firstRead = await rpc('hedera');
const idle = packages();
const firstUse = {
  mcp: await status('/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  }),
  keysPage: await status('/keys/new?name=lazy&network=testnet'),
};
const used = packages();
await gw.close();
process.stdout.write(`${JSON.stringify({ firstRead, idle, firstUse, used })}\n`);
