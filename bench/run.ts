/**
 * `npm run bench`: the gateway against baselines measured in the same run, reported as ratios.
 * The load comes from a separate process (autocannon, fixed concurrency); each figure is the median of RUNS runs
 * after a warm-up. Nothing here asserts a time.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pino from 'pino';
import { startGateway, type Gateway } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { ConfigInput } from '../src/config/schema.js';
import { createLimiter } from '../src/limits/index.js';
import type { Limiter } from '../src/limits/types.js';
import { measureKeyVerification } from './keysVerify.js';
import { LATEST_BLOCK, startMirrorStub } from './mirrorStub.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP_SECONDS = 2;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

const run = promisify(execFile);
const worker = fileURLToPath(new URL('./loadWorker.ts', import.meta.url));

async function load(url: string, bodies: string[], headers: Record<string, string> = {}, seconds = SECONDS): Promise<Figures> {
  const jobFile = join(tmpdir(), `bench-job-${process.pid}.json`);
  writeFileSync(jobFile, JSON.stringify({ url, bodies, headers, connections: CONNECTIONS, seconds }));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', worker, jobFile], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as Figures;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Warm-up, then RUNS measured runs; medians of each figure. `between` runs after each measured run. */
async function measure(url: string, bodies: string[], headers: Record<string, string> = {}, warmup = true): Promise<Figures> {
  if (warmup) await load(url, bodies, headers, WARMUP_SECONDS);
  const runs: Figures[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await load(url, bodies, headers));
  const pick = (k: keyof Figures) => median(runs.map((r) => r[k]));
  return { rps: pick('rps'), p50: pick('p50'), p99: pick('p99'), non2xx: pick('non2xx'), errors: pick('errors'), total: pick('total') };
}

/** A bare node:http server answering one constant body: the floor any gateway is measured against. */
async function constantServer(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.once('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** A limiter that admits everything: the "limits off" baseline (it has no backend; it reports the cheaper one). */
const noLimits: Limiter = {
  backend: 'memory',
  charge: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0 }),
  chargeWrite: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0 }),
  ping: async () => true,
  close: async () => {},
};

async function gateway(chains: ConfigInput['chains'], limiter?: Limiter): Promise<{ gw: Gateway; key: string }> {
  const config = loadConfig({
    env: {},
    overrides: {
      server: { port: 0 },
      keys: { dataDir: 'memory://', demoKey: false },
      sandbox: { enabled: false },
      log: { level: 'info' },
      chains,
      // The relay is open to paid plans; the benchmark key is on one with limits far above any load it sends.
      plans: { enterprise: { requestsPerSecond: 1e9, monthlyQuota: 1e15, apis: ['rpc', 'rest', 'graphql', 'beta-graphql', 'mcp'] } },
    },
  });
  // Production logs at info; the line is written to /dev/null so its cost is measured but not its I/O.
  const logger = pino({ level: 'info' }, pino.destination('/dev/null'));
  const gw = await startGateway(config, { logger, limiter });
  const account = await gw.keyStore.createAccount({ name: 'bench' });
  const { key } = await gw.keyStore.createKey({ accountId: account.id, name: 'bench', plan: 'enterprise', flags: ['relay_beta', 'heavy_writes'] });
  return { gw, key };
}

const evmChains = (upstream: string): ConfigInput['chains'] => ({
  ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: [upstream] }, sepolia: { chainId: 11155111, upstreams: [upstream] } } },
});
const ledgerChains = (mirrorUrl: string): ConfigInput['chains'] => ({
  hedera: {
    kind: 'ledger',
    displayName: 'Hedera',
    networks: {
      mainnet: { chainId: 295, apis: ['rpc'], ledger: { mirrorUrl, consensus: { '127.0.0.1:1': '0.0.3' } } },
      testnet: { chainId: 296, apis: ['rpc'], ledger: { mirrorUrl, consensus: { '127.0.0.1:1': '0.0.3' } } },
    },
  },
});

const call = (method: string, params: unknown[], id: number | string = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** The official relay's production mix, spread over many blocks, as a shuffled list every connection cycles through. */
function relayMix(size = 2_000): string[] {
  const bodies: string[] = [];
  const hexN = (n: number) => `0x${n.toString(16)}`;
  let seed = 42;
  const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const someBlock = () => LATEST_BLOCK - 1 - Math.floor(rand() * 5_000);
  for (let i = 0; i < size; i++) {
    const r = rand() * 100;
    if (r < 69) bodies.push(call('eth_getBlockByNumber', [rand() < 0.1 ? 'latest' : hexN(someBlock()), rand() < 0.5], i));
    else if (r < 82) {
      const n = someBlock();
      bodies.push(call('eth_getLogs', [{ fromBlock: hexN(n), toBlock: hexN(n), address: '0x00000000000000000000000000000000000003ec' }], i));
    } else if (r < 88) bodies.push(call('eth_chainId', [], i));
    else if (r < 93) bodies.push(call('eth_blockNumber', [], i));
    else if (r < 96) bodies.push(call('eth_call', [{ to: '0x00000000000000000000000000000000000003ec', data: '0x70a08231' }, 'latest'], i));
    else if (r < 98) bodies.push(call('eth_getTransactionReceipt', [`0x${someBlock().toString(16).padStart(16, '0')}00000000${'cd'.repeat(20)}`], i));
    else bodies.push(call('eth_getBalance', [`0x${'12'.repeat(20)}`, 'latest'], i));
  }
  return bodies;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function main() {
  const results: Record<string, unknown> = { connections: CONNECTIONS, seconds: SECONDS, runs: RUNS, node: process.version };
  const verification = await measureKeyVerification();
  results.keyVerification = verification;
  const rows: string[][] = [];
  // A run whose answers were errors measures the error path, so say so next to its figures.
  const failures = (f: Figures) => (f.non2xx + f.errors > 0 ? ` [${fmt(f.non2xx)} non-2xx, ${fmt(f.errors)} errors]` : '');
  const row = (name: string, f: Figures, note = '') => rows.push([name, fmt(f.rps), fmt(f.p50, 2), fmt(f.p99, 2), note + failures(f)]);
  const chainIdBody = call('eth_chainId', []);

  // 1. Edge cost: full edge against a bare node:http server with the same answer.
  {
    const bare = await constantServer('{"jsonrpc":"2.0","id":1,"result":"0xaa36a7"}');
    const baseline = await measure(bare.url, [chainIdBody]);
    const { gw, key } = await gateway(evmChains(bare.url));
    const edge = await measure(`${gw.url}/ethereum-sepolia/rpc`, [chainIdBody], { 'x-api-key': key });
    await gw.close();
    await bare.close();
    row('edge: bare node:http (baseline)', baseline);
    row('edge: gateway eth_chainId', edge, `${fmt(edge.rps / baseline.rps, 2)}x baseline throughput`);
    results.edge = { baseline, gateway: edge, throughputRatio: edge.rps / baseline.rps };
  }

  // 2. Forwarding overhead: eth_getBlockByNumber through the gateway to a fast stub, against the stub directly.
  {
    const blockBody = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { number: '0x1', hash: `0x${'ab'.repeat(32)}`, transactions: [] } });
    const stub = await constantServer(blockBody);
    const body = call('eth_getBlockByNumber', ['0x1', false]);
    const direct = await measure(stub.url, [body]);
    const { gw, key } = await gateway(evmChains(stub.url));
    const forwarded = await measure(`${gw.url}/ethereum/rpc`, [body], { 'x-api-key': key });
    await gw.close();
    await stub.close();
    row('forward: stub directly (baseline)', direct);
    row('forward: gateway -> stub', forwarded, `+${fmt(forwarded.p50 - direct.p50, 2)} ms p50, +${fmt(forwarded.p99 - direct.p99, 2)} ms p99, ${fmt(forwarded.rps / direct.rps, 2)}x throughput`);
    results.forwarding = { direct, gateway: forwarded, addedP50: forwarded.p50 - direct.p50, addedP99: forwarded.p99 - direct.p99, throughputRatio: forwarded.rps / direct.rps };
  }

  // 3 and 5. Relay on the production mix against a counting mirror stub, cold then warm; memory idle and under load.
  {
    const mirror = await startMirrorStub();
    const { gw, key } = await gateway(ledgerChains(mirror.url));
    const url = `${gw.url}/hedera-testnet/rpc`;
    const bodies = relayMix();
    const idleRss = process.memoryUsage().rss;
    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
    const before = mirror.requests();
    const cold = await load(url, bodies, { 'x-api-key': key });
    const coldPerRequest = (mirror.requests() - before) / cold.total;
    const warmStart = mirror.requests();
    const warm = await measure(url, bodies, { 'x-api-key': key }, false);
    const warmPerRequest = (mirror.requests() - warmStart) / (warm.total * RUNS);
    clearInterval(sampler);
    await gw.close();
    await mirror.close();
    row('relay mix: cold cache', cold, `${fmt(coldPerRequest, 2)} mirror requests per relay request`);
    row('relay mix: warm', warm, `${fmt(warmPerRequest, 3)} mirror requests per relay request`);
    results.relay = { cold, warm, mirrorPerRequestCold: coldPerRequest, mirrorPerRequestWarm: warmPerRequest };
    results.memory = { idleRssMb: mb(idleRss), peakRssUnderRelayLoadMb: mb(peakRss) };
  }

  // 4. Limiter: eth_chainId with limits off, in memory, and on Redis.
  {
    const bare = await constantServer('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
    const figures: Record<string, Figures> = {};
    const limits = loadConfig({ env: {} }).limits;
    const usage = { addUsage: async () => {}, usage: async () => 0 };
    const variants: Array<[string, () => Promise<Limiter>]> = [
      ['off', async () => noLimits],
      ['memory', () => createLimiter({ limits, usage })],
      ['redis', () => createLimiter({ limits: { ...limits, redisUrl: REDIS_URL, redisFailure: 'fail-closed' }, usage })],
    ];
    for (const [name, make] of variants) {
      const limiter = await make();
      if (!(await limiter.ping())) {
        rows.push([`limiter: ${name}`, 'skipped', '', '', `backend unreachable (${REDIS_URL})`]);
        await limiter.close();
        continue;
      }
      const { gw, key } = await gateway(evmChains(bare.url), limiter);
      figures[name] = await measure(`${gw.url}/ethereum-sepolia/rpc`, [chainIdBody], { 'x-api-key': key });
      await gw.close();
      await limiter.close();
    }
    await bare.close();
    const off = figures.off;
    for (const [name, f] of Object.entries(figures)) {
      const perRequestUs = (1 / f.rps - 1 / off.rps) * 1e6;
      row(`limiter: ${name}`, f, name === 'off' ? 'baseline' : `${fmt(f.rps / off.rps, 2)}x throughput, +${fmt(perRequestUs, 1)} us per request`);
    }
    results.limiter = Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, { ...f, throughputRatio: f.rps / off.rps }]));
  }

  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...[['case', 'req/s', 'p50 ms', 'p99 ms', 'comparison'], ...rows].map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i > 0 && i < 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  console.log(`\nconcurrency ${CONNECTIONS}, ${SECONDS} s per run, median of ${RUNS} runs after a ${WARMUP_SECONDS} s warm-up, ${process.version}\n`);
  console.log(line(['case', 'req/s', 'p50 ms', 'p99 ms', 'comparison']));
  for (const r of rows) console.log(line(r));
  const memory = results.memory as { idleRssMb: number; peakRssUnderRelayLoadMb: number };
  console.log(`\nmemory: ${memory.idleRssMb} MB resident at idle, ${memory.peakRssUnderRelayLoadMb} MB peak under the relay load`);
  const us = (ns: number) => `${fmt(ns / 1000, 2)} us`;
  console.log(
    `key verification (${verification.store} store): ${us(verification.warmNs)} per request with a warm cache ` +
      `(${fmt(verification.warmNs / verification.hashNs, 1)}x the key's SHA-256, ${us(verification.hashNs)}); a cold store look-up ${us(verification.coldNs)}`,
  );
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const out = new URL('./results/latest.json', import.meta.url);
  writeFileSync(out, JSON.stringify(results, null, 2));
  console.log(`figures written to ${fileURLToPath(out)}`);
}

await main();
process.exit(0);
