/**
 * Live data costs, measured on the ledger sandbox (one block a second, as on a real network every 2 s):
 * 1. mirror-node requests per second made by the gateway with 1 and with 100 `logs` subscribers (eth_subscribe over
 *    WebSocket), from the relay's own mirror request counter; one follower per network should make them equal;
 * 2. memory per idle JSON-RPC WebSocket: the gateway's heap, external memory and RSS before and after a separate
 *    client process opens 1,000 idle sockets.
 * Run: `node --expose-gc --import tsx bench/live.ts` (BENCH_LIVE_SECONDS sets the window, default 20).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startGateway } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { registry } from '../src/metrics.js';

const SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 20);
const SOCKETS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (process.argv[2] === 'clients') {
  // The client side of the memory figure, in its own process so its sockets do not count.
  const url = process.argv[3];
  const sockets: WebSocket[] = [];
  for (let i = 0; i < SOCKETS / 100; i++) {
    sockets.push(...(await Promise.all(Array.from({ length: 100 }, () => new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    })))));
  }
  process.send!('ready');
  process.on('message', () => process.exit(0));
} else {
  await main();
}

async function main(): Promise<void> {
  const config = loadConfig({
    env: {},
    overrides: {
      server: { port: 0 },
      keys: { dataDir: 'memory://', demoKey: false },
      sandbox: { enabled: true, blockIntervalMs: 1_000, history: false },
      log: { level: 'silent' },
    },
  });
  const gw = await startGateway(config);
  const account = await gw.keyStore.createAccount({ name: 'bench' });
  const { key } = await gw.keyStore.createKey({ accountId: account.id, name: 'bench', plan: 'enterprise', flags: ['relay_beta'] });
  const url = `${gw.url.replace(/^http/, 'ws')}/hedera-testnet/v1/${key}/rpc`;
  const attempts = async () => {
    const metric = await registry.getSingleMetric('gateway_relay_mirror_requests_total')!.get();
    return metric.values.find((v) => v.labels.network === 'hedera-testnet' && v.labels.kind === 'attempt')?.value ?? 0;
  };
  const open = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });

  // Warm the relay (first block lookups) before anything is measured.
  const warm = await open();
  warm.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }));
  await sleep(2_000);
  warm.close();

  const rates: Record<number, number> = {};
  for (const subscribers of [1, 100, 1]) {
    const sockets = await Promise.all(Array.from({ length: subscribers }, open));
    let notified = 0;
    for (const ws of sockets) {
      ws.on('message', () => notified++);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', {}] }));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads'] }));
    }
    await sleep(3_000);
    const before = await attempts();
    await sleep(SECONDS * 1_000);
    const rate = ((await attempts()) - before) / SECONDS;
    rates[subscribers] = rate;
    console.log(`${subscribers} logs (+ newHeads) subscriber(s): ${rate.toFixed(2)} mirror requests/s, ${notified} messages received`);
    sockets.forEach((ws) => ws.close());
    await sleep(1_000);
  }

  global.gc?.();
  const before = process.memoryUsage();
  const clients = fork(fileURLToPath(import.meta.url), ['clients', url], { execArgv: ['--import', 'tsx'] });
  await new Promise((resolve) => clients.once('message', resolve));
  await sleep(2_000);
  global.gc?.();
  const after = process.memoryUsage();
  const per = (k: keyof NodeJS.MemoryUsage) => Math.round((after[k] - before[k]) / SOCKETS);
  console.log(
    `memory per idle socket (${SOCKETS} sockets, gc ${global.gc ? 'forced' : 'not exposed: run with --expose-gc'}): ` +
      `heapUsed ${per('heapUsed')} B, external ${per('external')} B, arrayBuffers ${per('arrayBuffers')} B, rss ${per('rss')} B`,
  );
  clients.send('exit');
  await new Promise((resolve) => clients.once('exit', resolve));
  await gw.close();
  process.exit(0);
}
