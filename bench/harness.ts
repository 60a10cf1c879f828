/**
 * What every bench section shares: the load generator run in its own process, medians over runs, bench scripts and
 * gateways started as child processes, and what /proc says about a process.
 */
import { execFile, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ConfigInput } from '../src/config/schema.js';
import type { GatewayJob } from './gatewayServer.js';
import { stopChild } from './stopChild.js';

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
// Long enough for the JIT to settle: with 2 s the first gateway measured read about half its steady throughput.
export const WARMUP_SECONDS = 5;
export const RUNS = Number(process.env.BENCH_RUNS ?? 3);
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const REPO = fileURLToPath(new URL('..', import.meta.url));

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  /** The slowest answer: with a closed-loop load a few stalled requests hide below p99, never below the maximum. */
  max: number;
  non2xx: number;
  errors: number;
  total: number;
  /** CPU the load generator used, ms. */
  cpuMs: number;
  /** CPU per request of each process serving the target, and of the load generator, µs (when measured). */
  cpuUs?: Record<string, number>;
}

export const run = promisify(execFile);
const worker = fileURLToPath(new URL('./loadWorker.ts', import.meta.url));

/** `seconds` of load, or with `amount` that many requests whatever the time they take. */
export async function load(url: string, bodies: string[], headers: Record<string, string> = {}, seconds = SECONDS, connections = CONNECTIONS, amount?: number): Promise<Figures> {
  const jobFile = join(tmpdir(), `bench-job-${process.pid}.json`);
  writeFileSync(jobFile, JSON.stringify({ url, bodies, headers, connections, seconds, amount }));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', worker, jobFile], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as Figures;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The median of each figure over several runs. */
export const medians = (runs: Figures[]): Figures => {
  const pick = (k: Exclude<keyof Figures, 'cpuUs'>) => median(runs.map((r) => r[k]));
  return { rps: pick('rps'), p50: pick('p50'), p99: pick('p99'), max: pick('max'), non2xx: pick('non2xx'), errors: pick('errors'), total: pick('total'), cpuMs: pick('cpuMs') };
};

/** A child process running a bench script that prints one JSON line when ready. */
export interface Child {
  info: { url: string; metricsUrl?: string; key?: string; keys?: Record<string, string>; error?: string; keyStoreHeapBytes?: number };
  pid: number;
  stop(): Promise<void>;
}

/** A bench script run through tsx, or (`compiled`) a JavaScript file run by plain node as `npm start` runs the gateway. */
export async function child(script: string, args: string[], compiled = false): Promise<Child> {
  const argv = compiled ? [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), '--expose-gc', fileURLToPath(new URL(script, import.meta.url))] : ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url))];
  // BENCH_GATEWAY_NODE runs the compiled scripts (the gateways) on another Node binary, to compare Node versions.
  const node = (compiled && process.env.BENCH_GATEWAY_NODE) || process.execPath;
  const proc = spawn(node, [...argv, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const info = await new Promise<Child['info']>((resolve, reject) => {
    // V8's tracing flags (BENCH_NODE_FLAGS=--trace-gc, ...) print to stdout too: the ready line is the first JSON one,
    // and the rest goes to the file BENCH_CHILD_STDOUT names, if any.
    let buffered = '';
    let ready = false;
    proc.stdout.on('data', (chunk) => {
      if (ready) {
        if (process.env.BENCH_CHILD_STDOUT) appendFileSync(process.env.BENCH_CHILD_STDOUT, chunk);
        return;
      }
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0 && !ready; buffered = buffered.slice(end + 1), end = buffered.indexOf('\n')) {
        if (buffered.startsWith('{')) {
          ready = true;
          resolve(JSON.parse(buffered.slice(0, end)));
        }
      }
    });
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  return {
    info,
    pid: proc.pid!,
    stop: stopChild(proc),
  };
}

/** Answers eth_chainId (the gateway's start-up check) with `chainId`, everything else with `body`. */
export const constantServer = (body: string, chainId = '0x1') => child('./stubServer.ts', ['constant', body, chainId]);

/** Each gateway has the embedded key store `npm start` uses, in a directory of its own. */
export const gateway = (
  chains: ConfigInput['chains'],
  limiter: 'off' | 'memory' | 'redis' = 'memory',
  upstreamHealth?: ConfigInput['upstreamHealth'],
  more: Pick<GatewayJob, 'plans' | 'sandbox' | 'keys'> = {},
) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-keys-'));
  const job: GatewayJob = { chains, limiter, redisUrl: REDIS_URL, dataDir, upstreamHealth, ...more };
  return child('./.build/bench/gatewayServer.js', [JSON.stringify(job)], true);
};

/** The gateway and the bench's copy of it, compiled as `npm start` compiles it (a no-op when nothing changed). */
export async function compile(): Promise<void> {
  const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
  for (const project of ['tsconfig.build.json', 'tsconfig.bench.json']) await run(process.execPath, [tsc, '-b', join(REPO, project)], { cwd: REPO });
}

/** CPU time a process has used (user and system), from /proc (Linux), in ms. */
export function cpuMsOf(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU time (user and system, ms) in a /proc stat file: a process's, or one thread's (`/proc/<pid>/task/<tid>/stat`). */
export function statCpuMs(file: string): number {
  const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Resident memory of a process, from /proc (Linux), in bytes. */
export function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) * 1024;
}

export const call = (method: string, params: unknown[], id: number | string = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** Ethereum mainnet and Sepolia on one upstream. */
export const evmChains = (upstream: string): ConfigInput['chains'] => ({
  ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: [upstream] }, sepolia: { chainId: 11155111, upstreams: [upstream] } } },
});

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
