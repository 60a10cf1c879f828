/**
 * `npm run bench`: the gateway against baselines measured in the same run, reported as ratios.
 * The load comes from a separate process (autocannon, fixed concurrency); each figure is the median of RUNS runs
 * after a warm-up. Nothing here asserts a time.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ConfigInput } from '../src/config/schema.js';
import { measureKeyVerification } from './keysVerify.js';
import { COUNT_PATH, LATEST_BLOCK } from './mirrorStub.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
// Long enough for the JIT to settle: with 2 s the first gateway measured read about half its steady throughput.
const WARMUP_SECONDS = 5;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

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

/** The median of each figure over several runs. */
const medians = (runs: Figures[]): Figures => {
  const pick = (k: keyof Figures) => median(runs.map((r) => r[k]));
  return { rps: pick('rps'), p50: pick('p50'), p99: pick('p99'), non2xx: pick('non2xx'), errors: pick('errors'), total: pick('total') };
};

/** Warm-up, then RUNS measured runs; medians of each figure. */
async function measure(url: string, bodies: string[], headers: Record<string, string> = {}, warmup = true): Promise<Figures> {
  if (warmup) await load(url, bodies, headers, WARMUP_SECONDS);
  const runs: Figures[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await load(url, bodies, headers));
  return medians(runs);
}

/**
 * Like `measure` for several targets whose differences are small: their runs alternate (A, B, C, A, B, C, ...), so a
 * drift of the machine during the benchmark lands on all of them alike instead of on whichever ran last.
 */
async function measureInterleaved(targets: Array<{ url: string; headers: Record<string, string> }>, bodies: string[]): Promise<Figures[]> {
  for (const t of targets) await load(t.url, bodies, t.headers, WARMUP_SECONDS);
  const runs: Figures[][] = targets.map(() => []);
  for (let i = 0; i < RUNS; i++) for (const [n, t] of targets.entries()) runs[n].push(await load(t.url, bodies, t.headers));
  return runs.map(medians);
}

/** A child process running a bench script that prints one JSON line when ready. */
interface Child {
  info: { url: string; key?: string; error?: string };
  pid: number;
  stop(): Promise<void>;
}

async function child(script: string, args: string[]): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url)), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const info = await new Promise<Child['info']>((resolve, reject) => {
    let buffered = '';
    proc.stdout.on('data', (chunk) => {
      buffered += chunk;
      const line = buffered.indexOf('\n');
      if (line >= 0) resolve(JSON.parse(buffered.slice(0, line)));
    });
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  return {
    info,
    pid: proc.pid!,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

const constantServer = (body: string) => child('./stubServer.ts', ['constant', body]);
/** The key store the gateways use: Postgres as in production when reachable, else the embedded PGlite (~280 MB). */
let databaseUrl: string | undefined;
const gateway = (chains: ConfigInput['chains'], limiter: 'off' | 'memory' | 'redis' = 'memory') =>
  child('./gatewayServer.ts', [JSON.stringify({ chains, limiter, redisUrl: REDIS_URL, databaseUrl })]);

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) || 5432 });
    socket.setTimeout(1_000, () => (socket.destroy(), resolve(false)));
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Resident memory of a process, from /proc (Linux), in bytes. */
function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) * 1024;
}

async function mirrorRequests(mirrorUrl: string): Promise<number> {
  return Number(await (await fetch(new URL(COUNT_PATH, mirrorUrl))).text());
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
  databaseUrl = (await reachable(DATABASE_URL)) ? DATABASE_URL : undefined;
  const keyStore = databaseUrl ? 'Postgres' : 'embedded PGlite';
  const results: Record<string, unknown> = { connections: CONNECTIONS, seconds: SECONDS, runs: RUNS, node: process.version, keyStore };
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
    const baseline = await measure(bare.info.url, [chainIdBody]);
    const gw = await gateway(evmChains(bare.info.url));
    const edge = await measure(`${gw.info.url}/ethereum-sepolia/rpc`, [chainIdBody], { 'x-api-key': gw.info.key! });
    await Promise.all([gw.stop(), bare.stop()]);
    row('edge: bare node:http (baseline)', baseline);
    row('edge: gateway eth_chainId', edge, `${fmt(edge.rps / baseline.rps, 2)}x baseline throughput`);
    results.edge = { baseline, gateway: edge, throughputRatio: edge.rps / baseline.rps };
  }

  // 2. Forwarding overhead: eth_getBlockByNumber through the gateway to a fast stub, against the stub directly.
  {
    const blockBody = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { number: '0x1', hash: `0x${'ab'.repeat(32)}`, transactions: [] } });
    const stub = await constantServer(blockBody);
    const body = call('eth_getBlockByNumber', ['0x1', false]);
    const direct = await measure(stub.info.url, [body]);
    const gw = await gateway(evmChains(stub.info.url));
    const forwarded = await measure(`${gw.info.url}/ethereum/rpc`, [body], { 'x-api-key': gw.info.key! });
    await Promise.all([gw.stop(), stub.stop()]);
    row('forward: stub directly (baseline)', direct);
    row('forward: gateway -> stub', forwarded, `+${fmt(forwarded.p50 - direct.p50, 2)} ms p50, +${fmt(forwarded.p99 - direct.p99, 2)} ms p99, ${fmt(forwarded.rps / direct.rps, 2)}x throughput`);
    results.forwarding = { direct, gateway: forwarded, addedP50: forwarded.p50 - direct.p50, addedP99: forwarded.p99 - direct.p99, throughputRatio: forwarded.rps / direct.rps };
  }

  // 3 and 5. Relay on the production mix against a counting mirror stub, cold then warm; the gateway's memory.
  {
    const mirror = await child('./stubServer.ts', ['mirror']);
    const gw = await gateway(ledgerChains(mirror.info.url));
    const url = `${gw.info.url}/hedera-testnet/rpc`;
    const headers = { 'x-api-key': gw.info.key! };
    const bodies = relayMix();
    const idleRss = rssOf(gw.pid);
    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(gw.pid))), 200);
    const before = await mirrorRequests(mirror.info.url);
    const cold = await load(url, bodies, headers);
    const warmStart = await mirrorRequests(mirror.info.url);
    const warm = await measure(url, bodies, headers, false);
    const warmEnd = await mirrorRequests(mirror.info.url);
    clearInterval(sampler);
    await Promise.all([gw.stop(), mirror.stop()]);
    const coldPerRequest = (warmStart - before) / cold.total;
    const warmPerRequest = (warmEnd - warmStart) / (warm.total * RUNS);
    row('relay mix: cold cache', cold, `${fmt(coldPerRequest, 2)} mirror requests per relay request`);
    row('relay mix: warm', warm, `${fmt(warmPerRequest, 3)} mirror requests per relay request`);
    results.relay = { cold, warm, mirrorPerRequestCold: coldPerRequest, mirrorPerRequestWarm: warmPerRequest };
    results.memory = { idleRssMb: mb(idleRss), peakRssUnderRelayLoadMb: mb(peakRss) };
  }

  // 4. Limiter: eth_chainId with limits off, in memory, and on Redis, three gateways measured in alternation.
  {
    const bare = await constantServer('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
    const gateways = await Promise.all((['off', 'memory', 'redis'] as const).map(async (name) => ({ name, gw: await gateway(evmChains(bare.info.url), name) })));
    const usable = gateways.filter(({ name, gw }) => {
      if (gw.info.error) rows.push([`limiter: ${name}`, 'skipped', '', '', `${gw.info.error} (${REDIS_URL})`]);
      return !gw.info.error;
    });
    const measured = await measureInterleaved(
      usable.map(({ gw }) => ({ url: `${gw.info.url}/ethereum-sepolia/rpc`, headers: { 'x-api-key': gw.info.key! } })),
      [chainIdBody],
    );
    await Promise.all([...gateways.map(({ gw }) => gw.stop()), bare.stop()]);
    const figures = Object.fromEntries(usable.map(({ name }, i) => [name, measured[i]]));
    const off = figures.off;
    for (const [name, f] of Object.entries(figures)) {
      const perRequestUs = (1 / f.rps - 1 / off.rps) * 1e6;
      row(`limiter: ${name}`, f, name === 'off' ? 'baseline' : `${fmt(f.rps / off.rps, 2)}x throughput, ${perRequestUs >= 0 ? '+' : ''}${fmt(perRequestUs, 1)} us per request`);
    }
    results.limiter = Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, { ...f, throughputRatio: f.rps / off.rps }]));
  }

  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...[['case', 'req/s', 'p50 ms', 'p99 ms', 'comparison'], ...rows].map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i > 0 && i < 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  console.log(`\nconcurrency ${CONNECTIONS}, ${SECONDS} s per run, median of ${RUNS} runs after a ${WARMUP_SECONDS} s warm-up, ${process.version}, ${keyStore} key store\n`);
  console.log(line(['case', 'req/s', 'p50 ms', 'p99 ms', 'comparison']));
  for (const r of rows) console.log(line(r));
  const memory = results.memory as { idleRssMb: number; peakRssUnderRelayLoadMb: number };
  console.log(`\ngateway process memory: ${memory.idleRssMb} MB resident at idle, ${memory.peakRssUnderRelayLoadMb} MB peak under the relay load`);
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
