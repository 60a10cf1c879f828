/**
 * The abuse-resistance section (`BENCH_ONLY=attacks npm run bench`): keyed eth_chainId traffic at modest concurrency,
 * its p99 alone and beside each attack of the review (run from another process), on a fresh gateway per attack with
 * the catalogue's free plan and the ledger sandbox `npm start` uses. The goal: p99 under attack within 2x the same
 * run's p99 without, in each of the runs; the attacker's own figures show whether it was refused or merely idle.
 */
import { execFileSync, fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { defaultPlans } from '../src/config/catalogue.js';
import type { ConfigInput } from '../src/config/schema.js';
import type { AttackerStats, AttackJob, AttackKind } from './attacker.js';
import { call, constantServer, cpuMsOf, fmt, gateway, load, median, rssOf, RUNS, WARMUP_SECONDS, type Child, type Figures } from './harness.js';

/** Low enough that the legitimate load alone leaves the 2 cores room: what moves its p99 is the attack. */
const CONNECTIONS = 8;
/**
 * A window's length. With 2 s (10,000-25,000 answers) the control row's ratios spread 0.47-1.68x over ten runs on the
 * shared machine; with 6 s (70,000-98,000) 0.52-1.20x: a p99 of 2 s rests on a handful of the machine's stalls.
 */
const SECONDS = Number(process.env.BENCH_ATTACK_SECONDS ?? 6);
const SEPOLIA_CHAIN_ID = '0xaa36a7';

/**
 * Core 0 is the attacker's alone, as its own machine would be; the gateway, its upstream stub and the legitimate load
 * share the others, alone and under attack alike. Without that the attacker's own CPU (a reconnecting flood keeps a
 * core busy) would be taken from the gateway on a 2-core machine, which no gateway can defend against.
 */
const CORES = availableParallelism();
let pinned = false;

export function pin(pid: number, cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** What an attack reaches, started before anything is measured so that the start-up is not counted as the attack's. */
type Uses = 'ledger' | 'evm' | 'mcp';

/** A legitimate caller's check made while the attack runs: what it got, as a phrase. */
interface Probe {
  name: string;
  run(base: string, key: string): Promise<string>;
}

export const ATTACKS: Array<{ kind: AttackKind; name: string; uses: Uses[]; probe?: Probe }> = [
  // The control: the same alternation with an attacker that sends nothing. Its ratios are what the shared machine's
  // noise alone makes of two runs, the floor under which an attack's ratio says nothing.
  { kind: 'none', name: '0. no attack (the noise between two runs)', uses: [] },
  { kind: 'fragmentBomb', name: 'a. GraphQL fragment bomb (20 levels, free key)', uses: ['ledger'] },
  { kind: 'legacyNumericIds', name: 'b. legacy graphql-ws numeric ids, 2,000 subscriptions, never read', uses: ['ledger'] },
  { kind: 'mcpKeyless', name: 'c. keyless MCP, batches of 100 tools/list, 32 in parallel', uses: ['mcp'] },
  { kind: 'keylessSockets', name: 'd. 1,000 keyless GraphQL WebSockets held', uses: ['ledger'], probe: { name: 'keyed GraphQL WebSocket', run: keyedSocket } },
  { kind: 'slowBodies', name: 'e. 60 slow 5 MB bodies to /mcp, no key', uses: ['mcp'] },
  { kind: 'slowHeaders', name: 'f. 3,000 slow-header connections', uses: [] },
  { kind: 'aliasBomb', name: 'g. GraphQL alias bomb, transaction(limit:1000), free key', uses: ['ledger'] },
  { kind: 'wideLogs', name: 'h. eth_getLogs earliest..latest, filter 0x0..0xffffffff, free key', uses: ['evm'], probe: { name: 'keyed eth_blockNumber on the attacked network', run: keyedBlockNumber } },
];

export interface AttackFigures {
  p99Without: number;
  p99With: number;
  /** Median p99 with the attack over median p99 without. */
  ratio: number;
  /** The lowest and highest of each run's own ratio. */
  ratioSpread: [number, number];
  within2x: boolean;
  /** The machine's 1-minute load average when the attack's gateway started: other work on the shared cores. */
  loadAverage: number;
  runs: Array<{
    without: Figures;
    with: Figures;
    attacker: AttackerStats;
    gatewayRssMb: { before: number; peak: number };
    /** CPU the gateway used per second of each window: the attack's cost is the difference, which wall-clock noise does not move. */
    gatewayCpuMsPerSecond: { without: number; with: number };
    probe?: string;
  }>;
}

/** Ethereum Sepolia on the stub for the legitimate load; the ledger testnet and Ethereum mainnet on the sandbox. */
const chains = (stub: string): ConfigInput['chains'] => ({
  hedera: { kind: 'ledger', displayName: 'Hedera', networks: { mainnet: { chainId: 295 }, testnet: { chainId: 296, apis: ['rpc', 'rest', 'graphql'] } } },
  ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1 }, sepolia: { chainId: 11155111, upstreams: [stub] } } },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
  await res.arrayBuffer();
}

/** Starts what the attack reaches (the ledger sandbox and its GraphQL, the EVM devnet, the MCP server). */
async function warm(base: string, key: string, uses: Uses[]): Promise<void> {
  const headers = { 'x-api-key': key };
  if (uses.includes('ledger')) await post(`${base}/hedera-testnet/v1/graphql`, JSON.stringify({ query: '{record_file(limit:1){index}}' }), headers);
  if (uses.includes('evm')) await post(`${base}/ethereum/rpc`, call('eth_blockNumber', []), headers);
  if (uses.includes('mcp')) await post(`${base}/mcp`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
}

/** Waits until the gateway answers eth_chainId promptly again, so one run's attack does not leak into the next. */
async function settle(url: string, key: string): Promise<void> {
  const until = Date.now() + 30_000;
  let prompt = 0;
  while (prompt < 3 && Date.now() < until) {
    const started = performance.now();
    await post(url, call('eth_chainId', []), { 'x-api-key': key }).catch(() => {});
    prompt = performance.now() - started < 50 ? prompt + 1 : 0;
    await sleep(100);
  }
}

/** Whether a keyed GraphQL WebSocket that authenticates in connection_init gets its connection_ack. */
function keyedSocket(base: string, key: string): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/hedera-testnet/v1/graphql`, 'graphql-transport-ws');
    const done = (what: string) => {
      clearTimeout(timer);
      ws.terminate();
      resolve(what);
    };
    const timer = setTimeout(() => done('no answer in 5 s'), 5_000);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': key } })));
    ws.on('message', (data) => JSON.parse(String(data)).type === 'connection_ack' && done('got in'));
    ws.on('unexpected-response', (_req, res) => done(`refused: HTTP ${res.statusCode}`));
    ws.on('close', (code) => done(`closed ${code}`));
    ws.on('error', (err) => done(`error ${err.message}`));
  });
}

/** Whether the legitimate key still gets eth_blockNumber answered on the network the attack aims at, and how fast. */
async function keyedBlockNumber(base: string, key: string): Promise<string> {
  const started = performance.now();
  try {
    await fetch(`${base}/ethereum/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: call('eth_blockNumber', []), signal: AbortSignal.timeout(5_000) }).then((r) => r.text());
    return `answered in ${fmt(performance.now() - started)} ms`;
  } catch {
    return 'no answer in 5 s';
  }
}

/** The legitimate load, and the CPU the gateway used meanwhile, ms per second of the window. */
async function keyedLoad(gw: Child, url: string, headers: Record<string, string>) {
  const [cpu, started] = [cpuMsOf(gw.pid), performance.now()];
  const figures = await load(url, [call('eth_chainId', [])], headers, SECONDS, CONNECTIONS);
  return { figures, cpuMsPerSecond: ((cpuMsOf(gw.pid) - cpu) * 1000) / (performance.now() - started) };
}

/** A run that got no answer at all waited the whole run: its p99 is at least that long. */
const p99 = (f: Figures) => (f.total === 0 ? SECONDS * 1000 : f.p99);

/**
 * The attacker of `kind` forked against `gw` (on core 0 alone when the section pinned itself): `ready` once its attack
 * has ramped up; `stop` ends it and gives what it achieved.
 */
export function startAttacker(kind: AttackKind, gw: Child, onCore0 = pinned) {
  const job: AttackJob = { kind, base: gw.info.url, freeKey: gw.info.keys!.free, maxSeconds: SECONDS + 20 };
  const attacker = fork(fileURLToPath(new URL('./attacker.ts', import.meta.url)), [JSON.stringify(job)], { execArgv: ['--import', 'tsx'] });
  const messages: unknown[] = [];
  let wake = () => {};
  attacker.on('message', (m) => (messages.push(m), wake()));
  const next = async () => {
    while (messages.length === 0) await new Promise<void>((r) => (wake = r));
    return messages.shift();
  };
  if (onCore0) pin(attacker.pid!, '0');
  const exited = new Promise((r) => attacker.once('exit', r));
  return {
    ready: next().then(() => {}),
    async stop(): Promise<AttackerStats> {
      attacker.send('stop');
      const { stats } = (await next()) as { stats: AttackerStats };
      await exited;
      return stats;
    },
  };
}

/** One run beside the attack: the attacker ramps up in its own process, then the legitimate load runs. */
async function underAttack(kind: AttackKind, gw: Child, url: string, headers: Record<string, string>, probe?: Probe) {
  const attacker = startAttacker(kind, gw);
  const before = rssOf(gw.pid);
  await attacker.ready;
  let peak = rssOf(gw.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(gw.pid))), 200);
  const [{ figures, cpuMsPerSecond }, probed] = await Promise.all([keyedLoad(gw, url, headers), probe?.run(gw.info.url, headers['x-api-key'])]);
  clearInterval(sampler);
  const stats = await attacker.stop();
  return { figures, cpuMsPerSecond, stats, rss: { before: mb(before), peak: mb(peak) }, probe: probe && `${probe.name}: ${probed}` };
}

/** A fresh gateway as each attack meets it: the catalogue's free plan (key `free`) and the sandbox, as `npm start` has it. */
export const attackedGateway = (stub: Child) =>
  gateway(chains(stub.info.url), 'memory', undefined, { plans: { free: defaultPlans().free }, sandbox: { enabled: true }, keys: { free: 'free' } });

/** What every attack may reach, started. */
export const warmAll = (gw: Child) => warm(gw.info.url, gw.info.key!, ['ledger', 'evm', 'mcp']);

async function measureAttack({ kind, uses, probe }: (typeof ATTACKS)[number], stub: Child): Promise<AttackFigures> {
  const loadAverage = loadavg()[0];
  const gw = await attackedGateway(stub);
  try {
    const url = `${gw.info.url}/ethereum-sepolia/rpc`;
    const headers = { 'x-api-key': gw.info.key! };
    await warm(gw.info.url, gw.info.key!, uses);
    // As long as the other sections warm up: after 1 s the first run's p99 without the attack was still the JIT's,
    // up to 3 times the later runs', which flattered that run's ratio.
    await load(url, [call('eth_chainId', [])], headers, WARMUP_SECONDS, CONNECTIONS);
    const runs: AttackFigures['runs'] = [];
    for (let i = 0; i < RUNS; i++) {
      const alone = await keyedLoad(gw, url, headers);
      const attacked = await underAttack(kind, gw, url, headers, probe);
      const gatewayCpuMsPerSecond = { without: alone.cpuMsPerSecond, with: attacked.cpuMsPerSecond };
      runs.push({ without: alone.figures, with: attacked.figures, attacker: attacked.stats, gatewayRssMb: attacked.rss, gatewayCpuMsPerSecond, probe: attacked.probe });
      await settle(url, gw.info.key!);
    }
    const p99Without = median(runs.map((r) => p99(r.without)));
    const p99With = median(runs.map((r) => p99(r.with)));
    const ratios = runs.map((r) => p99(r.with) / p99(r.without));
    return { p99Without, p99With, ratio: p99With / p99Without, ratioSpread: [Math.min(...ratios), Math.max(...ratios)], within2x: Math.max(...ratios) <= 2, loadAverage, runs };
  } finally {
    await gw.stop();
  }
}

/** What the attacker achieved in a run, and what the legitimate load lost. */
function describe(run: AttackFigures['runs'][number]): string {
  const a = run.attacker;
  const answers = Object.entries(a.answers)
    .sort((x, y) => y[1] - x[1])
    .slice(0, 3)
    .map(([k, n]) => `${k} x${fmt(n)}`)
    .join(', ');
  const lost = run.with.non2xx + run.with.errors;
  const none = run.with.total === 0 ? '; legitimate load: no answer within the run' : '';
  return (
    `attacker: ${fmt(a.sent)} sent, ${fmt(a.accepted)} accepted, ${fmt(a.refused)} refused, ${fmt(a.failed)} failed, ` +
    `${fmt(a.sent - a.accepted - a.refused - a.failed)} unanswered at the end, ${fmt(a.bytesSent / 1024)} KB sent, ` +
    `${fmt(a.bytesReceived / 1024)} KB received, ${fmt(a.socketsOpen)} sockets open at most${answers ? ` (${answers})` : ''}${a.note ? `; ${a.note}` : ''}; ` +
    `gateway RSS ${run.gatewayRssMb.before} -> ${run.gatewayRssMb.peak} MB, CPU ${fmt(run.gatewayCpuMsPerSecond.without)} ms/s alone, ` +
    `${fmt(run.gatewayCpuMsPerSecond.with)} under attack${run.probe ? `; ${run.probe}` : ''}` +
    `${lost > 0 ? `; legitimate load: ${fmt(run.with.non2xx)} non-2xx, ${fmt(run.with.errors)} errors` : ''}${none}`
  );
}

/** The upstream stub of the legitimate load. */
export const sepoliaStub = () => constantServer(`{"jsonrpc":"2.0","id":1,"result":"${SEPOLIA_CHAIN_ID}"}`, SEPOLIA_CHAIN_ID);

export async function attacks(): Promise<Record<string, AttackFigures>> {
  pinned = CORES >= 2 && pin(process.pid, `1-${CORES - 1}`);
  const stub = await sepoliaStub();
  const results: Record<string, AttackFigures> = {};
  const only = process.env.BENCH_ATTACKS?.split(',');
  try {
    for (const attack of ATTACKS.filter((a) => !only || only.includes(a.kind))) {
      const { kind, name } = attack;
      const started = performance.now();
      const f = (results[kind] = await measureAttack(attack, stub));
      console.log(
        `${name}: eth_chainId p99 ${fmt(f.p99Without, 2)} ms alone, ${fmt(f.p99With, 2)} ms under attack, ${fmt(f.ratio, 2)}x ` +
          `(runs ${fmt(f.ratioSpread[0], 2)}-${fmt(f.ratioSpread[1], 2)}x) ${f.within2x ? 'within' : 'NOT within'} 2x`,
      );
      for (const run of f.runs) console.log(`  ${describe(run)}`);
      console.log(`  (${fmt((performance.now() - started) / 1000)} s with the gateway's start; load average ${fmt(f.loadAverage, 1)} on ${CORES} cores${pinned ? ', the attacker on core 0 alone' : ''})`);
    }
  } finally {
    await stub.stop();
    // The sections after this one measure on every core.
    if (pinned) pin(process.pid, `0-${CORES - 1}`);
  }
  return results;
}
