/**
 * `npm run bench`: the gateway against baselines measured in the same run, reported as ratios.
 * The load comes from a separate process (autocannon, fixed concurrency); each figure is the median of RUNS runs
 * after a warm-up. Nothing here asserts a time.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/load.js';
import type { ConfigInput } from '../src/config/schema.js';
import { attacks } from './attacks.js';
import { describeFarMirror, farMirror } from './farMirror.js';
import { followerCosts, followerRows } from './follower.js';
import { describeJumbo, jumboDeployments } from './jumbo.js';
import {
  call,
  child,
  compile,
  CONNECTIONS,
  constantServer,
  cpuMsOf,
  evmChains,
  fmt,
  gateway,
  load,
  median,
  medians,
  REDIS_URL,
  REPO,
  rssOf,
  RUNS,
  SECONDS,
  WARMUP_SECONDS,
  type Child,
  type Figures,
} from './harness.js';
import { measureKeyVerification } from './keysVerify.js';
import { measureMethodPolicy } from './methodPolicy.js';
import { describeUsagePageCost, measureUsagePage } from './usagePage.js';
import { LATEST_BLOCK } from './mirrorStub.js';
import { ledgerChains, mirrorRequests, relayMirrorStub, relayMix } from './relayMix.js';
import { officialRelayDir, startOfficialRelay } from './officialRelay.js';
import { stopChild } from './stopChild.js';

/** Warm-up, then RUNS measured runs; medians of each figure. */
async function measure(url: string, bodies: string[], headers: Record<string, string> = {}, warmup = true): Promise<Figures> {
  if (warmup) await load(url, bodies, headers, WARMUP_SECONDS);
  const runs: Figures[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await load(url, bodies, headers));
  return medians(runs);
}

/** One load run, with the CPU (ms) each named process spent during it. */
async function loadWithCpu(url: string, bodies: string[], headers: Record<string, string>, processes: Record<string, number> = {}) {
  const before = Object.entries(processes).map(([name, pid]) => [name, pid, cpuMsOf(pid)] as const);
  const figures = await load(url, bodies, headers);
  return { figures, cpuMs: Object.fromEntries(before.map(([name, pid, ms]) => [name, cpuMsOf(pid) - ms])) };
}

/**
 * Like `measure` for several targets whose differences are small: their runs alternate (A, B, C, A, B, C, ...), so a
 * drift of the machine during the benchmark lands on all of them alike instead of on whichever ran last.
 */
async function measureInterleaved(
  targets: Array<{ url: string; headers: Record<string, string>; processes?: Record<string, number> }>,
  bodies: string[],
  rounds = RUNS,
): Promise<Array<Figures & { runs: Figures[] }>> {
  for (const t of targets) await load(t.url, bodies, t.headers, WARMUP_SECONDS);
  const runs: Figures[][] = targets.map(() => []);
  // With `processes` (a name for each pid serving the target), their CPU over the target's measured runs, per request.
  const cpu = targets.map((t) => Object.fromEntries(Object.keys({ ...t.processes, load: 0 }).map((name) => [name, 0])));
  for (let i = 0; i < rounds; i++) {
    for (const [n, t] of targets.entries()) {
      const { figures: f, cpuMs } = await loadWithCpu(t.url, bodies, t.headers, t.processes);
      for (const [name, ms] of Object.entries(cpuMs)) cpu[n][name] += ms;
      cpu[n].load += f.cpuMs;
      runs[n].push(f);
    }
  }
  return runs.map((r, n) => {
    const requests = r.reduce((sum, f) => sum + f.total, 0);
    return { ...medians(r), runs: r, cpuUs: Object.fromEntries(Object.entries(cpu[n]).map(([name, ms]) => [name, (ms * 1000) / requests])) };
  });
}




/** A Prometheus sample's value from a gateway's /metrics (summed over label sets). */
async function metric(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', baseUrl))).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(name) && /^[a-z_]+(\{|\s)/.exec(line)?.[0].trim().replace('{', '') === name) sum += Number(line.split(' ').pop());
  return sum;
}

/**
 * `npm start` as a user runs it (compiled, the embedded key store, the sandbox for every network): resident memory at
 * idle, then once the ledger sandbox and one EVM devnet have started (they start on first use).
 */
async function startedGatewayMemory(): Promise<{ idleRss: number; sandboxRss: number; startToReadyMs: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-start-'));
  const started = performance.now();
  const proc = spawn(process.execPath, ['dist/main.js'], { cwd: REPO, env: { ...process.env, PORT: '0', DATA_DIR: dataDir, GATEWAY_CONFIG: '', DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    const banner = await new Promise<string>((resolve, reject) => {
      proc.stdout.on('data', (chunk) => {
        out += chunk;
        if (/Demo API key:.*\n/.test(out)) resolve(out);
      });
      proc.once('exit', (code) => reject(new Error(`npm start's gateway exited with ${code}: ${out}`)));
    });
    const startToReadyMs = performance.now() - started;
    const base = /Gateway:\s+(\S+)/.exec(banner)![1];
    const key = /Demo API key:\s+(\S+)/.exec(banner)![1];
    await new Promise((r) => setTimeout(r, 3_000));
    const idleRss = rssOf(proc.pid!);
    for (const network of ['hedera-testnet', 'ethereum-sepolia']) {
      const res = await fetch(`${base}/${network}/rpc`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: call('eth_blockNumber', []) });
      await res.text();
    }
    await new Promise((r) => setTimeout(r, 3_000));
    return { idleRss, sandboxRss: rssOf(proc.pid!), startToReadyMs };
  } finally {
    await stopChild(proc)();
    rmSync(dataDir, { recursive: true, force: true });
  }
}



/** One load run of `bodies` on a fresh gateway (on its own fresh, warmed mirror stub), 2 s after it is ready. */
async function freshGatewayCold(bodies: string[]): Promise<{ figures: Figures; gatewayMs: number; mirrorRequests: number }> {
  const stub = await relayMirrorStub();
  const gw = await gateway(ledgerChains(stub.info.url));
  try {
    await new Promise((r) => setTimeout(r, 2_000));
    const before = await mirrorRequests(stub.info.url);
    const { figures, cpuMs } = await loadWithCpu(`${gw.info.url}/hedera-testnet/rpc`, bodies, { 'x-api-key': gw.info.key! }, { gateway: gw.pid });
    return { figures, gatewayMs: cpuMs.gateway, mirrorRequests: (await mirrorRequests(stub.info.url)) - before };
  } finally {
    await Promise.all([gw.stop(), stub.stop()]);
  }
}

/** One load run of `bodies` on a fresh official relay (its own fresh, warmed mirror stub), 2 s after it answers. */
async function freshOfficialCold(dir: string, bodies: string[]): Promise<{ figures: Figures; cpuUs: number; mirrorPerRequest: number }> {
  const stub = await relayMirrorStub();
  const relay = await startOfficialRelay(dir, stub.info.url, '0x128');
  try {
    await new Promise((r) => setTimeout(r, 2_000));
    const before = await mirrorRequests(stub.info.url);
    const { figures, cpuMs } = await loadWithCpu(relay.url, bodies, {}, { official: relay.pid });
    return { figures, cpuUs: (cpuMs.official * 1000) / figures.total, mirrorPerRequest: ((await mirrorRequests(stub.info.url)) - before) / figures.total };
  } finally {
    await Promise.all([relay.stop(), stub.stop()]);
  }
}

/**
 * Sends distinct final-block requests (every block of the stub, with and without its transactions) from 32 workers
 * until the gateway's read cache holds 95% of `bound`. The mix alone leaves the cache far below its bound: it touches
 * 5,000 blocks, and every load connection walks the same list of bodies from its top.
 */
async function fillReadCache(url: string, headers: Record<string, string>, metricsUrl: string, bound: number): Promise<number> {
  const hexN = (n: number) => `0x${n.toString(16)}`;
  const bodies = Array.from({ length: 2 * (LATEST_BLOCK - 1) }, (_, i) => call('eth_getBlockByNumber', [hexN(LATEST_BLOCK - 1 - (i >> 1)), i % 2 === 0]));
  let next = 0;
  let held = await metric(metricsUrl, 'gateway_relay_cache_bytes');
  while (held < 0.95 * bound && next < bodies.length) {
    await sendOnce(url, headers, bodies.slice(next, next + 5_000));
    next += 5_000;
    held = await metric(metricsUrl, 'gateway_relay_cache_bytes');
  }
  return held;
}

/** Sends each body once over CONNECTIONS connections, reading every answer. */
async function sendOnce(url: string, headers: Record<string, string>, bodies: string[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: bodies[next++] });
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const mb1 = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;

function printTable(rows: string[][]): void {
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...[['case', 'req/s', 'p50 ms', 'p99 ms', 'comparison'], ...rows].map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i > 0 && i < 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  console.log(`\nconcurrency ${CONNECTIONS}, ${SECONDS} s per run, median of ${RUNS} runs after a ${WARMUP_SECONDS} s warm-up, ${process.version}, embedded key store\n`);
  console.log(line(['case', 'req/s', 'p50 ms', 'p99 ms', 'comparison']));
  for (const r of rows) console.log(line(r));
}

interface Part {
  peakRssMb: number;
  rssAfterMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  relayCacheMb: number;
}

interface Memory {
  idle: { rssMb: number; heapUsedMb: number; heapTotalMb: number; keyStoreHeapMb: number };
  relayMix: Part;
  /** The mix again once the read cache holds its bound (relay.cacheBytes). */
  cachesFull: Part & { relayCacheBoundMb: number };
  /** Not measured with BENCH_ONLY=relay. */
  npmStart?: { idleRssMb: number; withSandboxStartedRssMb: number; sandboxMb: number };
}

function printMemory(memory: Memory, startToReadyMs?: number): void {
  const { idle, relayMix: mix, cachesFull: full } = memory;
  const memoryRows = [
    ['resident (RSS)', `${idle.rssMb}`, `${mix.peakRssMb} peak, ${mix.rssAfterMb} after`, `${full.peakRssMb} peak, ${full.rssAfterMb} after`],
    ['V8 heap used / reserved', `${idle.heapUsedMb} / ${idle.heapTotalMb}`, `${mix.heapUsedMb} / ${mix.heapTotalMb}`, `${full.heapUsedMb} / ${full.heapTotalMb}`],
    ['  of which the key store (embedded)', `${idle.keyStoreHeapMb}`, `${idle.keyStoreHeapMb}`, `${idle.keyStoreHeapMb}`],
    ['  of which the relay read cache', '0', `${mix.relayCacheMb}`, `${full.relayCacheMb} of ${full.relayCacheBoundMb}`],
    ['outside the heap (code, buffers)', `${idle.rssMb - idle.heapTotalMb}`, `${mix.rssAfterMb - mix.heapTotalMb}`, `${full.rssAfterMb - full.heapTotalMb}`],
  ];
  const header = ['part (MB)', 'idle', 'relay mix', 'relay mix, read cache at its bound'];
  const mw = header.map((_, i) => Math.max(...[header, ...memoryRows].map((r) => r[i].length)));
  const memoryLine = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(mw[i]) : c.padStart(mw[i]))).join('  ');
  console.log(`\ngateway memory by part (embedded key store, no sandbox):\n${memoryLine(header)}`);
  for (const r of memoryRows) console.log(memoryLine(r));
  if (memory.npmStart && startToReadyMs !== undefined) {
    console.log(
      `npm start (compiled, sandbox): ${memory.npmStart.idleRssMb} MB resident at idle, ${memory.npmStart.withSandboxStartedRssMb} MB once the ledger sandbox and ` +
        `one EVM devnet have started (the sandbox: ${memory.npmStart.sandboxMb} MB); start to banner ${fmt(startToReadyMs)} ms`,
    );
  }
}

async function main() {
  await compile();
  const keyStore = 'embedded';
  const results: Record<string, unknown> = { connections: CONNECTIONS, seconds: SECONDS, runs: RUNS, node: process.version, keyStore };
  const verification = await measureKeyVerification();
  results.keyVerification = verification;
  const usagePageCost = measureUsagePage();
  results.usagePage = usagePageCost;
  const rows: string[][] = [];
  // A run whose answers were errors measures the error path, so say so next to its figures.
  const failures = (f: Figures) => (f.non2xx + f.errors > 0 ? ` [${fmt(f.non2xx)} non-2xx, ${fmt(f.errors)} errors]` : '');
  const row = (name: string, f: Figures, note = '') => rows.push([name, fmt(f.rps), fmt(f.p50, 2), fmt(f.p99, 2), note + failures(f)]);
  const chainIdBody = call('eth_chainId', []);

  const only = process.env.BENCH_ONLY;
  // Abuse resistance: keyed eth_chainId beside each attack of the review. BENCH_ONLY=attacks runs just this and adds
  // its figures to the last full run's results.
  if (!only || only === 'attacks') {
    results.attacks = await attacks();
    if (only === 'attacks') {
      writeResults({ ...readResults(), attacks: results.attacks });
      return;
    }
  }
  // Large contract deployments on the ledger: one jumbo EthereumTransaction against the file service. BENCH_ONLY=jumbo
  // runs just this and adds its figures to the last full run's results.
  if (!only || only === 'jumbo') {
    const jumbo = await jumboDeployments();
    results.jumbo = jumbo;
    console.log(describeJumbo(jumbo));
    if (only === 'jumbo') {
      writeResults({ ...readResults(), jumbo });
      return;
    }
  }
  // EVM upstreams: p99 with one of two upstreams stalling 20% of its answers for 1 s, hedging off and on (gateways
  // measured in alternation); and what the method policy adds per call. BENCH_ONLY=evm runs just these.
  if (!only || only === 'evm') {
    const blockBody = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { number: '0x1', hash: `0x${'ab'.repeat(32)}`, transactions: [] } });
    const stalling = await child('./stubServer.ts', ['stall', '0.2', '1000', blockBody, '0x1']);
    const steady = await constantServer(blockBody, '0x1');
    const chains = { ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: [stalling.info.url, steady.info.url] } } } };
    const gateways = await Promise.all([false, true].map((hedge) => gateway(chains, 'memory', { hedge })));
    const [off, on] = await measureInterleaved(
      gateways.map((gw) => ({ url: `${gw.info.url}/ethereum/rpc`, headers: { 'x-api-key': gw.info.key! } })),
      [call('eth_getBlockByNumber', ['0x1', false])],
    );
    await Promise.all([...gateways.map((gw) => gw.stop()), stalling.stop(), steady.stop()]);
    const vs = (a: Figures, b: Figures) => `p99 ${fmt(a.p99 / b.p99, 2)}x, max ${fmt(a.max)} ms against ${fmt(b.max)} ms without hedging`;
    row('upstreams: one stalls 20% for 1 s, no hedging', off, `max ${fmt(off.max)} ms`);
    row('upstreams: one stalls 20% for 1 s, hedging', on, vs(on, off));
    // Both upstreams stall, each for 200 ms of every second at different times: no ranking avoids that, a hedge does.
    const windows = await Promise.all(['0', '500'].map((phase) => child('./stubServer.ts', ['window', '0.2', '1000', phase, blockBody, '0x1'])));
    const bothChains = { ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: windows.map((w) => w.info.url) } } } };
    const bothGateways = await Promise.all([false, true].map((hedge) => gateway(bothChains, 'memory', { hedge })));
    const [bothOff, bothOn] = await measureInterleaved(
      bothGateways.map((gw) => ({ url: `${gw.info.url}/ethereum/rpc`, headers: { 'x-api-key': gw.info.key! } })),
      [call('eth_getBlockByNumber', ['0x1', false])],
    );
    await Promise.all([...bothGateways.map((gw) => gw.stop()), ...windows.map((w) => w.stop())]);
    row('upstreams: each stalls 200 ms of every s, no hedging', bothOff, `max ${fmt(bothOff.max)} ms`);
    row('upstreams: each stalls 200 ms of every s, hedging', bothOn, vs(bothOn, bothOff));
    const policy = measureMethodPolicy();
    const perRequestNs = 1e9 / on.rps;
    results.evmUpstreams = { stallNoHedge: off, stallHedge: on, bothStallNoHedge: bothOff, bothStallHedge: bothOn, policy, policyShareOfRequest: policy.forwardedNs / perRequestNs };
    console.log(
      `method policy: ${fmt(policy.forwardedNs, 1)} ns per forwarded call, ${fmt((100 * policy.forwardedNs) / perRequestNs, 3)}% of a forwarded ` +
        `request at ${fmt(on.rps)} req/s (a bare Map look-up: ${fmt(policy.mapNs, 1)} ns); ${fmt(policy.checkNs, 1)} ns per call over a mix with 4 refusals in 10`,
    );
    if (only === 'evm') {
      printTable(rows);
      return;
    }
  }

  // 1. Edge cost: full edge against a bare node:http server with the same answer. BENCH_ONLY=edge runs just this;
  // BENCH_ONLY=forward runs it too, as forwarding's CPU allowance is the edge's cost over bare node:http.
  if (!only || only === 'edge' || only === 'forward') {
    const bare = await constantServer('{"jsonrpc":"2.0","id":1,"result":"0xaa36a7"}');
    const gw = await gateway(evmChains(bare.info.url));
    const floorKey = 'pk_bench_edgefloor0000';
    const floor = await child('./edgeFloor.ts', [floorKey, '0xaa36a7']);
    // In alternation: a drift of the shared machine lands on all three, not on whichever ran last.
    const [baseline, floorFigures, edge] = await measureInterleaved(
      [
        { url: bare.info.url, headers: {}, processes: { server: bare.pid } },
        { url: floor.info.url, headers: { 'x-api-key': floorKey }, processes: { server: floor.pid } },
        { url: `${gw.info.url}/ethereum-sepolia/rpc`, headers: { 'x-api-key': gw.info.key! }, processes: { server: gw.pid } },
      ],
      [chainIdBody],
    );
    await Promise.all([gw.stop(), bare.stop(), floor.stop()]);
    row('edge: bare node:http (baseline)', baseline);
    row('edge: its required work flat in one handler', floorFigures, `${fmt(floorFigures.rps / baseline.rps, 2)}x baseline throughput (the floor of the gateway's structure)`);
    row('edge: gateway eth_chainId', edge, `${fmt(edge.rps / baseline.rps, 2)}x baseline throughput, ${fmt(edge.rps / floorFigures.rps, 2)}x the floor's`);
    const server = (f: Figures) => f.cpuUs?.server ?? 0;
    // Each server is one thread: its CPU per request bounds its throughput whatever the load generator leaves it.
    console.log(
      `edge CPU per request: gateway ${fmt(server(edge), 1)} us, the floor ${fmt(server(floorFigures), 1)} us, bare node:http ${fmt(server(baseline), 1)} us ` +
        `(${fmt(server(baseline) / server(edge), 2)}x the gateway's); 0.5x bare leaves the gateway ${fmt(2 * server(baseline), 1)} us`,
    );
    results.edge = { baseline, floor: floorFigures, gateway: edge, throughputRatio: edge.rps / baseline.rps, floorRatio: floorFigures.rps / baseline.rps };
    if (only === 'edge') {
      printTable(rows);
      return;
    }
  }

  // 2. Forwarding overhead: eth_getBlockByNumber through the gateway to a fast stub, against the stub directly, and
  // against the ceiling of any Node forwarder: node:http passing bodies through the gateway's HTTP client and nothing
  // else; and against the floor of a forwarding edge: that pass-through with the edge's required work (edgeFloor.ts).
  // BENCH_ONLY=forward runs just this.
  if (!only || only === 'forward') {
    const blockBody = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { number: '0x1', hash: `0x${'ab'.repeat(32)}`, transactions: [] } });
    const stub = await constantServer(blockBody, '0x1');
    const body = call('eth_getBlockByNumber', ['0x1', false]);
    const floorKey = 'pk_bench_forwardfloor00';
    const [gw, proxy, floor] = await Promise.all([
      gateway(evmChains(stub.info.url)),
      child('./stubServer.ts', ['proxy', stub.info.url]),
      child('./edgeFloor.ts', [floorKey, '0x1', stub.info.url]),
    ]);
    const [direct, ceiling, floorFigures, forwarded] = await measureInterleaved(
      [
        { url: stub.info.url, headers: {}, processes: { stub: stub.pid } },
        { url: proxy.info.url, headers: {}, processes: { proxy: proxy.pid, stub: stub.pid } },
        { url: floor.info.url, headers: { 'x-api-key': floorKey }, processes: { floor: floor.pid, stub: stub.pid } },
        { url: `${gw.info.url}/ethereum/rpc`, headers: { 'x-api-key': gw.info.key! }, processes: { gateway: gw.pid, stub: stub.pid } },
      ],
      [body],
    );
    await Promise.all([gw.stop(), proxy.stop(), floor.stop(), stub.stop()]);
    row('forward: stub directly (baseline)', direct);
    row('forward: bare pass-through (ceiling)', ceiling, `${fmt(ceiling.rps / direct.rps, 2)}x throughput`);
    row('forward: the edge\'s required work, flat (floor)', floorFigures, `${fmt(floorFigures.rps / ceiling.rps, 2)}x the ceiling's throughput`);
    row(
      'forward: gateway -> stub',
      forwarded,
      `+${fmt(forwarded.p50 - direct.p50, 2)} ms p50, +${fmt(forwarded.p99 - direct.p99, 2)} ms p99, ${fmt(forwarded.rps / direct.rps, 2)}x throughput, ` +
        `${fmt(forwarded.rps / ceiling.rps, 2)}x the ceiling's, ${fmt(forwarded.rps / floorFigures.rps, 2)}x the floor's`,
    );
    // What 0.6x direct asks of 2 cores: the stub and the load generator keep their share (taken at their cheapest, as
    // when driven directly), the gateway gets the rest, and one core at most, being one thread.
    const us = (f: Figures, name: string) => f.cpuUs?.[name] ?? 0;
    const target = 0.6 * direct.rps;
    const budget = Math.min(1e6 / target, 2e6 / target - us(direct, 'stub') - us(direct, 'load'));
    console.log(
      `forward CPU per request: gateway ${fmt(us(forwarded, 'gateway'))} us, the floor ${fmt(us(floorFigures, 'floor'))} us, bare pass-through ${fmt(us(ceiling, 'proxy'))} us, ` +
        `stub ${fmt(us(forwarded, 'stub'))} us and load generator ${fmt(us(forwarded, 'load'))} us behind the gateway ` +
        `(${fmt(us(direct, 'stub'))} and ${fmt(us(direct, 'load'))} us direct); 0.6x direct (${fmt(target)} req/s) on 2 cores leaves the gateway ${fmt(budget)} us`,
    );
    // What forwarding may cost: the bare pass-through's CPU plus what the edge costs over bare node:http, this run's.
    const edgeCpu = (results.edge as { baseline: Figures; gateway: Figures } | undefined);
    const edgeCost = edgeCpu ? (edgeCpu.gateway.cpuUs?.server ?? 0) - (edgeCpu.baseline.cpuUs?.server ?? 0) : undefined;
    const allowance = edgeCost === undefined ? undefined : us(ceiling, 'proxy') + edgeCost;
    if (allowance !== undefined) {
      const over = us(forwarded, 'gateway') - allowance;
      console.log(
        `forward CPU allowance: bare pass-through ${fmt(us(ceiling, 'proxy'))} us + the edge's cost over bare node:http ${fmt(edgeCost!, 1)} us = ${fmt(allowance)} us; ` +
          `the gateway spent ${fmt(us(forwarded, 'gateway'))} us (${over > 0 ? `${fmt(over)} us over` : `${fmt(-over)} us under`})`,
      );
    }
    results.forwarding = {
      cpuAllowanceUs: allowance,
      direct,
      ceiling,
      gateway: forwarded,
      addedP50: forwarded.p50 - direct.p50,
      addedP99: forwarded.p99 - direct.p99,
      throughputRatio: forwarded.rps / direct.rps,
      ceilingRatio: ceiling.rps / direct.rps,
      floor: floorFigures,
      floorToCeiling: floorFigures.rps / ceiling.rps,
      gatewayToFloor: forwarded.rps / floorFigures.rps,
      gatewayBudgetUsAt06: budget,
    };
    if (only === 'forward') {
      printTable(rows);
      return;
    }
  }

  // Latency with a far mirror node: each method's cold p50/p99 and sequential mirror round trips, ours beside the
  // official relay's. BENCH_ONLY=far runs just this and adds its figures to the last full run's results.
  if (!only || only === 'far') {
    const far = await farMirror(REPO);
    results.farMirror = far;
    console.log(describeFarMirror(far));
    if (only === 'far') {
      writeResults({ ...readResults(), farMirror: far });
      return;
    }
  }

  // 3 and 5. Relay on the production mix against a counting mirror stub, cold then warm, against the official relay
  // on a stub of its own when it is built beside the project (warm runs in alternation); the gateway's memory.
  // BENCH_ONLY=relay runs just these, without the memory of `npm start`; BENCH_ONLY=memory adds it.
  if (!only || only === 'relay' || only === 'memory') {
    // Both mirror stubs warmed up first: a fresh stub's own JIT warm-up would be charged to whichever relay meets it first.
    const mirror = await relayMirrorStub();
    const gw = await gateway(ledgerChains(mirror.info.url));
    const url = `${gw.info.url}/hedera-testnet/rpc`;
    const headers = { 'x-api-key': gw.info.key! };
    const bodies = relayMix();
    const { dir: officialDir, lookedIn } = officialRelayDir(REPO);
    const officialMirror = officialDir ? await relayMirrorStub() : undefined;
    const official = officialDir && officialMirror ? await startOfficialRelay(officialDir, officialMirror.info.url, '0x128') : undefined;
    await new Promise((r) => setTimeout(r, 2_000));
    const idle = { rss: rssOf(gw.pid), heap: await metric(gw.info.metricsUrl!, 'nodejs_heap_size_used_bytes'), heapTotal: await metric(gw.info.metricsUrl!, 'nodejs_heap_size_total_bytes') };
    let peakRss = idle.rss;
    let officialPeakRss = official ? rssOf(official.pid) : 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, rssOf(gw.pid));
      if (official) officialPeakRss = Math.max(officialPeakRss, rssOf(official.pid));
    }, 200);
    if (official) await load(official.url, bodies, {}, WARMUP_SECONDS);
    const before = await mirrorRequests(mirror.info.url);
    // The gateway's CPU over the cold run too: the cold path is what a live network mostly gets.
    // The other processes' CPU over it too: whatever else runs then takes the shared cores from the gateway.
    const others = { mirror: mirror.pid, ...(official && officialMirror ? { official: official.pid, officialMirror: officialMirror.pid } : {}) };
    const { figures: firstCold, cpuMs: coldCpuMs } = await loadWithCpu(url, bodies, headers, { gateway: gw.pid, ...others });
    const warmStart = await mirrorRequests(mirror.info.url);
    const officialStart = officialMirror ? await mirrorRequests(officialMirror.info.url) : 0;
    const warmRuns: Figures[] = [];
    const officialRuns: Figures[] = [];
    // CPU of each relay's process and of the load generator over the warm runs: what a request costs each relay,
    // whatever share of the 2 cores the load generator and the mirror stubs take.
    const cpuMs = { gateway: 0, official: 0, gatewayLoad: 0 };
    for (let i = 0; i < RUNS; i++) {
      const ours = await loadWithCpu(url, bodies, headers, { gateway: gw.pid });
      warmRuns.push(ours.figures);
      cpuMs.gateway += ours.cpuMs.gateway;
      cpuMs.gatewayLoad += ours.figures.cpuMs;
      if (!official) continue;
      const theirs = await loadWithCpu(official.url, bodies, {}, { official: official.pid });
      officialRuns.push(theirs.figures);
      cpuMs.official += theirs.cpuMs.official;
    }
    const warmEnd = await mirrorRequests(mirror.info.url);
    const officialEnd = officialMirror ? await mirrorRequests(officialMirror.info.url) : 0;
    clearInterval(sampler);
    const warm = medians(warmRuns);
    const part = async (peak: number): Promise<Part> => ({
      peakRssMb: mb(peak),
      rssAfterMb: mb(rssOf(gw.pid)),
      heapUsedMb: mb(await metric(gw.info.metricsUrl!, 'nodejs_heap_size_used_bytes')),
      heapTotalMb: mb(await metric(gw.info.metricsUrl!, 'nodejs_heap_size_total_bytes')),
      relayCacheMb: mb(await metric(gw.info.metricsUrl!, 'gateway_relay_cache_bytes')),
    });
    const mixPart = await part(peakRss);
    // The cold cache on a process whose code is compiled: the mix on 5,000 blocks it has not read. The cold run above
    // is also a fresh process's first seconds, where compiling the relay's code costs about as much as its reads (the
    // gateway's background threads, compiler and GC, took about 50 us a request there against 13 us here); a live
    // network's new blocks reach a process that has been serving new blocks for a while. So each relay first serves
    // the mix once, uncounted, on 5,000 other blocks it has not read (the warm runs above hit the cache, and left the
    // code that reads the mirror and formats its answers barely run: 144 us a request cold right after them, 86 us
    // after two cold runs), then is measured on the next 5,000; the official relay alike, on its own stub, after ours.
    const compiledCold = async (target: string, targetHeaders: Record<string, string>, counting: Child, pid: number) => {
      await load(target, relayMix(2_000, 10_000), targetHeaders);
      const start = await mirrorRequests(counting.info.url);
      const { figures, cpuMs } = await loadWithCpu(target, relayMix(2_000, 5_000), targetHeaders, { relay: pid });
      return { figures, cpuUs: (cpuMs.relay * 1000) / figures.total, mirrorPerRequest: ((await mirrorRequests(counting.info.url)) - start) / figures.total };
    };
    const { figures: newBlocks, cpuUs: newBlocksCpuUs, mirrorPerRequest: newBlocksPerRequest } = await compiledCold(url, headers, mirror, gw.pid);
    const officialCompiledCold = official && officialMirror ? await compiledCold(official.url, {}, officialMirror, official.pid) : undefined;
    // Caches full: the read cache filled to its bound, then the mix once more.
    const cacheBound = loadConfig({ env: {} }).relay.cacheBytes;
    let fullPeakRss = rssOf(gw.pid);
    const fullSampler = setInterval(() => (fullPeakRss = Math.max(fullPeakRss, rssOf(gw.pid))), 200);
    await fillReadCache(url, headers, gw.info.metricsUrl!, cacheBound);
    await load(url, bodies, headers);
    clearInterval(fullSampler);
    const fullPart = { ...(await part(fullPeakRss)), relayCacheBoundMb: mb(cacheBound) };
    // The official relay measured as our cold row is: a fresh process on a cold cache (its code not compiled, its
    // cache empty, idle 2 s after it answers), beside the row above that warms it up first.
    const officialCold = officialDir ? await freshOfficialCold(officialDir, bodies) : undefined;
    // A fresh process's first seconds are at the mercy of whatever else the shared cores run then: the cold row is
    // the median of RUNS fresh gateways (each on a fresh warmed stub, idle 2 s), its CPU and mirror requests summed.
    const colds = [{ figures: firstCold, gatewayMs: coldCpuMs.gateway, mirrorRequests: warmStart - before }];
    for (let i = 1; i < RUNS; i++) colds.push(await freshGatewayCold(bodies));
    await Promise.all([gw.stop(), mirror.stop(), official?.stop(), officialMirror?.stop()]);
    const totalOf = (runs: Figures[]) => runs.reduce((sum, f) => sum + f.total, 0);
    const cold = medians(colds.map((c) => c.figures));
    const coldRequests = colds.reduce((sum, c) => sum + c.figures.total, 0);
    const coldPerRequest = colds.reduce((sum, c) => sum + c.mirrorRequests, 0) / coldRequests;
    const coldSpread = `fresh processes ${colds.map((c) => fmt(c.figures.rps)).join(', ')} req/s`;
    const coldGatewayUs = (colds.reduce((sum, c) => sum + c.gatewayMs, 0) * 1000) / coldRequests;
    const warmPerRequest = (warmEnd - warmStart) / totalOf(warmRuns);
    results.relay = { cold, coldRuns: colds.map((c) => c.figures), warm, coldCompiled: newBlocks, mirrorPerRequestCold: coldPerRequest, mirrorPerRequestWarm: warmPerRequest, mirrorPerRequestColdCompiled: newBlocksPerRequest };
    if (official) {
      const baseline = medians(officialRuns);
      const officialPerRequest = (officialEnd - officialStart) / totalOf(officialRuns);
      const against = (f: Figures) => `${fmt(f.rps / baseline.rps, 1)}x the official relay's throughput, p99 ${fmt(f.p99 / baseline.p99, 3)}x its p99`;
      row('relay mix: official relay (baseline)', baseline, `${fmt(officialPerRequest, 3)} mirror requests per relay request, ${mb(officialPeakRss)} MB peak RSS`);
      row('relay mix: cold cache', cold, `${against(cold)}; ${fmt(coldPerRequest, 2)} mirror requests per relay request; ${coldSpread}`);
      row('relay mix: warm', warm, `${against(warm)}; ${fmt(warmPerRequest, 3)} mirror requests per relay request`);
      row('relay mix: cold cache, compiled', newBlocks, `${against(newBlocks)}; ${fmt(newBlocksPerRequest, 2)} mirror requests per relay request`);
      if (officialCompiledCold) {
        row(
          'relay mix: official relay, cold cache, compiled',
          officialCompiledCold.figures,
          `our compiled cold row is ${fmt(newBlocks.rps / officialCompiledCold.figures.rps, 1)}x its throughput, p99 ${fmt(newBlocks.p99 / officialCompiledCold.figures.p99, 3)}x its p99; ` +
            `${fmt(officialCompiledCold.mirrorPerRequest, 2)} mirror requests per relay request`,
        );
      }
      if (officialCold) {
        row(
          'relay mix: official relay, fresh process, cold cache',
          officialCold.figures,
          `our cold cache row is ${fmt(cold.rps / officialCold.figures.rps, 1)}x its throughput; ${fmt(officialCold.mirrorPerRequest, 2)} mirror requests per relay request`,
        );
      }
      const usPer = (ms: number, runs: Figures[]) => (ms * 1000) / totalOf(runs);
      const cpu = { gateway: usPer(cpuMs.gateway, warmRuns), official: usPer(cpuMs.official, officialRuns), load: usPer(cpuMs.gatewayLoad, warmRuns), gatewayCold: coldGatewayUs, gatewayColdCompiled: newBlocksCpuUs };
      // What 15x the official relay's throughput asks of 2 cores: the load generator keeps its share, the gateway
      // (one thread) gets the rest, one core at most.
      const target = 15 * baseline.rps;
      const budget = Math.min(1e6 / target, 2e6 / target - cpu.load);
      console.log(
        `relay CPU per request (warm mix): gateway ${fmt(cpu.gateway)} us, official relay ${fmt(cpu.official)} us (${fmt(cpu.official / cpu.gateway, 1)}x the ` +
          `gateway's), load generator ${fmt(cpu.load)} us behind the gateway; 15x (${fmt(target)} req/s) on 2 cores leaves the gateway ${fmt(budget)} us`,
      );
      // The official relay's CPU is its warm figure (it runs the mix before it is measured), which flatters it cold.
      console.log(`relay CPU per request (cold mix): gateway ${fmt(cpu.gatewayCold)} us (${fmt(cpu.official / cpu.gatewayCold, 1)}x less than the official relay's warm figure)`);
      console.log(
        `CPU during the first cold run (${fmt(firstCold.total)} requests): gateway ${fmt(coldCpuMs.gateway)} ms, its mirror stub ${fmt(coldCpuMs.mirror)} ms, load generator ${fmt(cold.cpuMs)} ms, ` +
          `the idle official relay ${fmt(coldCpuMs.official ?? 0)} ms and its stub ${fmt(coldCpuMs.officialMirror ?? 0)} ms`,
      );
      const officialCompiledUs = officialCompiledCold ? `; the official relay's on the same blocks ${fmt(officialCompiledCold.cpuUs)} us (${fmt(officialCompiledCold.cpuUs / cpu.gatewayColdCompiled, 1)}x the gateway's)` : '';
      console.log(`relay CPU per request (cold cache, compiled): gateway ${fmt(cpu.gatewayColdCompiled)} us (${fmt(cpu.official / cpu.gatewayColdCompiled, 1)}x less than the official relay's warm figure)${officialCompiledUs}`);
      if (officialCold) {
        console.log(
          `relay CPU per request, both fresh processes on a cold cache: gateway ${fmt(cpu.gatewayCold)} us, official relay ${fmt(officialCold.cpuUs)} us (${fmt(officialCold.cpuUs / cpu.gatewayCold, 1)}x the gateway's)`,
        );
      }
      results.relay = {
        ...(results.relay as object),
        cpuUsPerRequest: cpu,
        gatewayBudgetUsAt15x: budget,
        official: { ...baseline, mirrorPerRequest: officialPerRequest, peakRssMb: mb(officialPeakRss), dir: officialDir },
        warmThroughputRatio: warm.rps / baseline.rps,
        warmP99Ratio: warm.p99 / baseline.p99,
        coldThroughputRatio: cold.rps / baseline.rps,
        coldP99Ratio: cold.p99 / baseline.p99,
        officialCold: officialCold && { ...officialCold.figures, cpuUsPerRequest: officialCold.cpuUs, mirrorPerRequest: officialCold.mirrorPerRequest },
        coldThroughputRatioBothFresh: officialCold && cold.rps / officialCold.figures.rps,
        officialCompiledCold: officialCompiledCold && { ...officialCompiledCold.figures, cpuUsPerRequest: officialCompiledCold.cpuUs, mirrorPerRequest: officialCompiledCold.mirrorPerRequest },
        coldCompiledThroughputRatioBothCompiled: officialCompiledCold && newBlocks.rps / officialCompiledCold.figures.rps,
      };
    } else {
      // Without the official relay the ceiling is the bare node:http server of the edge case.
      const ceiling = (results.edge as { baseline?: Figures } | undefined)?.baseline;
      const against = (f: Figures) => (ceiling ? `${fmt(f.rps / ceiling.rps, 2)}x the bare node:http ceiling; ` : '');
      const instead = ceiling ? 'compared with the bare node:http ceiling' : 'BENCH_ONLY skips the bare node:http ceiling too';
      rows.push(['relay mix: official relay', 'absent', '', '', `not built at ${lookedIn} (set OFFICIAL_RELAY_DIR); ${instead}`]);
      row('relay mix: cold cache', cold, `${against(cold)}${fmt(coldPerRequest, 2)} mirror requests per relay request; ${coldSpread}`);
      row('relay mix: warm', warm, `${against(warm)}${fmt(warmPerRequest, 3)} mirror requests per relay request`);
      row('relay mix: cold cache, compiled', newBlocks, `${against(newBlocks)}${fmt(newBlocksPerRequest, 2)} mirror requests per relay request`);
    }
    results.memory = {
      idle: { rssMb: mb(idle.rss), heapUsedMb: mb(idle.heap), heapTotalMb: mb(idle.heapTotal), keyStoreHeapMb: mb1(gw.info.keyStoreHeapBytes ?? 0) },
      relayMix: mixPart,
      cachesFull: fullPart,
    };
    if (only === 'relay') {
      printTable(rows);
      printMemory(results.memory as Memory);
      return;
    }
    const start = await startedGatewayMemory();
    (results.memory as Memory).npmStart = { idleRssMb: mb(start.idleRss), withSandboxStartedRssMb: mb(start.sandboxRss), sandboxMb: mb(start.sandboxRss - start.idleRss) };
    results.startToReadyMs = Math.round(start.startToReadyMs);
    if (only === 'memory') {
      printTable(rows);
      printMemory(results.memory as Memory, results.startToReadyMs as number);
      return;
    }
  }

  // Shared read cache: one pass of the relay mix, cold, sent to each of N instances at once (every instance asked for
  // the same calls, the worst case for N private caches), against one counting mirror stub. A fixed pass, not a timed
  // load, so N instances do N times the work of one and their mirror requests compare directly. Each configuration names
  // its own chain, so no instance finds texts another left in Redis. BENCH_ONLY=sharedcache runs just this.
  if (!only || only === 'sharedcache') {
    const configs = [
      { name: '1 instance on Redis', instances: 1, limiter: 'redis' },
      { name: '2 instances on one Redis', instances: 2, limiter: 'redis' },
      { name: '4 instances on one Redis', instances: 4, limiter: 'redis' },
      { name: '4 instances without Redis', instances: 4, limiter: 'memory' },
    ] as const;
    const shared: Record<string, { mirrorRequests: number; relayRequests: number; perRequest: number; rps: number }> = {};
    const bodies = relayMix();
    for (const c of configs) {
      const mirror = await child('./stubServer.ts', ['mirror']);
      const chain = `hedera${Date.now().toString(36)}`;
      const { hedera } = ledgerChains(mirror.info.url) as Record<string, NonNullable<ConfigInput['chains']>[string]>;
      const gws = await Promise.all(Array.from({ length: c.instances }, () => gateway({ [chain]: hedera }, c.limiter)));
      const before = await mirrorRequests(mirror.info.url);
      const started = performance.now();
      await Promise.all(gws.map((gw) => sendOnce(`${gw.info.url}/${chain}-testnet/rpc`, { 'x-api-key': gw.info.key! }, bodies)));
      const seconds = (performance.now() - started) / 1000;
      const asked = (await mirrorRequests(mirror.info.url)) - before;
      await Promise.all([...gws.map((gw) => gw.stop()), mirror.stop()]);
      const total = c.instances * bodies.length;
      shared[c.name] = { mirrorRequests: asked, relayRequests: total, perRequest: asked / total, rps: total / seconds };
      const one = shared[configs[0].name];
      const note = `${fmt(asked)} mirror requests for ${fmt(total)} relay requests (${fmt(asked / one.mirrorRequests, 2)}x one instance), ${fmt(asked / total, 3)} per relay request`;
      rows.push([`shared cache: ${c.name}, one pass each`, fmt(total / seconds), '', '', note]);
    }
    results.sharedCache = shared;
    if (only === 'sharedcache') {
      printTable(rows);
      writeResults({ ...readResults(), sharedCache: results.sharedCache });
      return;
    }
  }

  // Live follower: upstream calls per second with 1 and 4 instances on one Redis, and 4 without it (one follower each).
  // BENCH_ONLY=follower runs just this and adds its figures to the last full run's results.
  if (!only || only === 'follower') {
    const follower = await followerCosts();
    results.follower = follower;
    rows.push(...followerRows(follower));
    if (only === 'follower') {
      printTable(rows);
      writeResults({ ...readResults(), follower });
      return;
    }
  }

  // 4. Limiter: eth_chainId with limits off, in memory, and on Redis, three gateways measured in alternation, with the
  // gateway's CPU per request (the machine may be busy, so throughput alone can mislead). Each backend's ratio is the
  // median over rounds of its run against the limits-off run just before it: pairs a few seconds apart share the
  // machine's state, which drifts over the minute the section takes (three rounds spread 0.61x-1.39x for the in-memory
  // limiter, which makes no Redis call). BENCH_ONLY=limiter runs just this.
  {
    const bare = await constantServer('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
    const gateways = await Promise.all((['off', 'memory', 'redis'] as const).map(async (name) => ({ name, gw: await gateway(evmChains(bare.info.url), name) })));
    const usable = gateways.filter(({ name, gw }) => {
      if (gw.info.error) rows.push([`limiter: ${name}`, 'skipped', '', '', `${gw.info.error} (${REDIS_URL})`]);
      return !gw.info.error;
    });
    const measured = await measureInterleaved(
      usable.map(({ gw }) => ({ url: `${gw.info.url}/ethereum-sepolia/rpc`, headers: { 'x-api-key': gw.info.key! }, processes: { gateway: gw.pid } })),
      [chainIdBody],
      LIMITER_ROUNDS,
    );
    await Promise.all([...gateways.map(({ gw }) => gw.stop()), bare.stop()]);
    const figures = Object.fromEntries(usable.map(({ name }, i) => [name, measured[i]]));
    const off = figures.off;
    const ratios = (f: (typeof measured)[number]) => f.runs.map((run, i) => run.rps / off.runs[i].rps).sort((a, b) => a - b);
    for (const [name, f] of Object.entries(figures)) {
      const cpu = `gateway CPU ${fmt(f.cpuUs?.gateway ?? 0, 1)} us per request`;
      const perRequestUs = (f.cpuUs?.gateway ?? 0) - (off.cpuUs?.gateway ?? 0);
      const r = ratios(f);
      row(
        `limiter: ${name}`,
        f,
        name === 'off' ? `baseline; ${cpu}` : `${fmt(median(r), 2)}x throughput (rounds ${fmt(r[0], 2)}-${fmt(r[r.length - 1], 2)}), ${perRequestUs >= 0 ? '+' : ''}${fmt(perRequestUs, 1)} us CPU per request; ${cpu}`,
      );
    }
    results.limiter = Object.fromEntries(Object.entries(figures).map(([k, { runs, ...f }]) => [k, { ...f, throughputRatio: median(ratios({ runs, ...f })), roundRatios: ratios({ runs, ...f }) }]));
  }

  printTable(rows);
  if (only === 'limiter') {
    writeResults({ ...readResults(), limiter: results.limiter });
    return;
  }
  printMemory(results.memory as Memory, results.startToReadyMs as number);
  const us = (ns: number) => `${fmt(ns / 1000, 2)} us`;
  console.log(
    `key verification (${verification.store} store): ${us(verification.warmNs)} per request with a warm cache ` +
      `(${fmt(verification.warmNs / verification.hashNs, 1)}x the key's SHA-256, ${us(verification.hashNs)}); a cold store look-up ${us(verification.coldNs)}`,
  );
  console.log(describeUsagePageCost(usagePageCost));
  writeResults(results);
}

/** Rounds of the limiter section's alternation: its effect is a few percent, the machine's drift more (BENCH_LIMITER_ROUNDS). */
const LIMITER_ROUNDS = Number(process.env.BENCH_LIMITER_ROUNDS ?? 7);

const RESULTS = new URL('./results/latest.json', import.meta.url);

function readResults(): Record<string, unknown> {
  return existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, unknown>) : {};
}

function writeResults(results: Record<string, unknown>): void {
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(results, null, 2));
  console.log(`figures written to ${fileURLToPath(RESULTS)}`);
}

await main();
process.exit(0);
