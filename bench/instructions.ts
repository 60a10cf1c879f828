/**
 * Instructions per request, counted by valgrind's callgrind: the same figure twice for the same build whatever else the
 * shared cores run, where CPU time per request moves by 10-20% between runs. For comparing two builds of a hot path
 * (the edge, forwarding) by a few percent. `node --import tsx bench/instructions.ts [cases] [requests]`: cases
 * (comma-separated) among `edge` (the gateway answering eth_chainId itself), `bare` (bare node:http answering it),
 * `forward` (eth_getBlockByNumber forwarded to a constant upstream), `proxy` (the bare pass-through forwarding it),
 * `relay` (the relay's production mix on a warm cache), and `edge-floor`, `forward-floor` (edgeFloor.ts: the edge's
 * required work written flat, answering and forwarding). `edge,bare,forward,proxy` also prints forwarding's allowance
 * (issue 30) in instructions, and with the floors the allowance the required work itself gets. 3,000 requests each by
 * default, counted after five times as many uncounted ones (`INSTRUCTIONS_WARM_UP`). Each server runs under valgrind,
 * about 50x slower, so its requests seldom overlap: the figure is a request's own work, without the batching a loaded
 * server gets. Counted per thread: the main thread's count repeats to a few hundredths of a percent between runs, V8's
 * background threads' (compilation, concurrent marking) moves by thousands. `INSTRUCTIONS_OUT=<dir>` keeps the main
 * thread's counted window there (`callgrind_annotate` names Node's and V8's built-in functions; callgrindJs.ts names
 * JIT-compiled JavaScript too).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import type { GatewayJob } from './gatewayServer.js';
import { call, compile, constantServer, evmChains, fmt, run, type Child } from './harness.js';
import { ledgerChains, relayMirrorStub, relayMix } from './relayMix.js';

const cases = (process.argv[2] ?? 'edge,forward').split(',');
const requests = Number(process.argv[3] ?? 3_000);
/**
 * Uncounted requests first: under valgrind V8 keeps compiling (on threads valgrind runs in turn with the main one) for
 * thousands of requests; with as many as are counted, TurboFan's passes were a tenth of the count.
 */
const warmUp = Number(process.env.INSTRUCTIONS_WARM_UP ?? 5 * requests);
/** Requests in flight at once (`INSTRUCTIONS_CONCURRENCY`): 1 makes the count repeat closest, 8 is nearer a loaded server. */
const CONCURRENCY = Number(process.env.INSTRUCTIONS_CONCURRENCY ?? 8);

/** Further flags for the counted Node (`--perf-basic-prof`, so that callgrindJs.ts can name JIT-compiled functions). */
const nodeFlags = (process.env.INSTRUCTIONS_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/** A compiled bench script under callgrind with counting off until asked; resolves once it prints its ready line. */
async function underCallgrind(script: string, args: string[], outFile: string) {
  const path = fileURLToPath(new URL(`./.build/bench/${script}`, import.meta.url));
  const proc = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${outFile}`, process.execPath, ...nodeFlags, '--expose-gc', path, ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const info = await new Promise<{ url: string; key?: string }>((resolve, reject) => {
    let buffered = '';
    proc.stdout.on('data', (chunk) => {
      buffered += chunk;
      const line = buffered.split('\n').find((l) => l.startsWith('{'));
      if (line && buffered.includes(`${line}\n`)) resolve(JSON.parse(line));
    });
    proc.once('exit', (code) => reject(new Error(`${script} under valgrind exited with ${code}`)));
  });
  return { info, proc };
}

/** What is counted: the bench's gateway with a job, or one of the bare servers the bench compares it with. */
type Counted = { gateway: Omit<GatewayJob, 'dataDir'> } | { script: 'stubServer.js' | 'edgeFloor.js'; args: string[]; key?: string };

/** `count` requests of `bodies` (in turn), CONCURRENCY at a time, each answered before the next on its lane. */
async function send(pool: Pool, path: string, key: string | undefined, bodies: string[], count: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const body = bodies[next++ % bodies.length];
      const res = await pool.request({ method: 'POST', path, headers: key ? { 'content-type': 'application/json', 'x-api-key': key } : { 'content-type': 'application/json' }, body });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

/**
 * Instructions per counted request: on the main thread, which repeats to a few hundredths of a percent between runs,
 * and with V8's background threads (compilation, concurrent marking), which move by a few thousand.
 */
async function instructionsPerRequest(counted: Counted, path: string, bodies: string[]): Promise<{ main: number; all: number }> {
  // INSTRUCTIONS_OUT=<dir> keeps each case's counted window there, for callgrind_annotate.
  const kept = process.env.INSTRUCTIONS_OUT;
  const outFile = join(kept ?? tmpdir(), `callgrind.${process.pid}.${Date.now()}.out`);
  const dataDir = 'gateway' in counted ? mkdtempSync(join(tmpdir(), 'bench-keys-')) : undefined;
  const { info, proc } = 'gateway' in counted
    ? await underCallgrind('gatewayServer.js', [JSON.stringify({ ...counted.gateway, dataDir })], outFile)
    : await underCallgrind(counted.script, counted.args, outFile);
  const key = 'gateway' in counted ? info.key : counted.key;
  const pool = new Pool(info.url, { connections: CONCURRENCY });
  try {
    await send(pool, path, key, bodies, warmUp);
    await run('callgrind_control', ['-i', 'on', String(proc.pid)]);
    await send(pool, path, key, bodies, requests);
    await run('callgrind_control', ['-i', 'off', String(proc.pid)]);
    await run('callgrind_control', ['--dump', String(proc.pid)]);
  } finally {
    await pool.close();
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  // The dump asked for holds the counted window, a file per thread (`<file>.1-<thread>`); the one written at exit holds
  // only what followed (no counting then). `totals`, not the header's `summary`, which reads 0 when counting was switched
  // on after the start.
  const dir = kept ?? tmpdir();
  const dumped = readdirSync(dir).filter((f) => f.startsWith(`${basename(outFile)}.1-`));
  let main = 0;
  let all = 0;
  for (const name of dumped) {
    const totals = readFileSync(join(dir, name), 'utf8').match(/^totals: (\d+)/m);
    if (!totals) throw new Error(`callgrind wrote no totals in ${name}`);
    all += Number(totals[1]);
    if (name.endsWith('-01')) main = Number(totals[1]);
    if (!kept || !name.endsWith('-01')) rmSync(join(dir, name), { force: true });
  }
  for (const name of readdirSync(dir).filter((f) => f.startsWith(basename(outFile)) && !dumped.includes(f))) rmSync(join(dir, name), { force: true });
  if (main === 0) throw new Error('callgrind counted nothing on the main thread');
  return { main: main / requests, all: all / requests };
}

const CHAIN_ID = '{"jsonrpc":"2.0","id":1,"result":"0xaa36a7"}';
const BLOCK = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { number: '0x1', hash: `0x${'ab'.repeat(32)}`, transactions: [] } });
const FLOOR_KEY = 'pk_bench_floor00000000';
const chainIdCall = [call('eth_chainId', [])];
const blockCall = [call('eth_getBlockByNumber', ['0x1', false])];

/** Each case: the upstream it needs (if any), then what is counted against it, on which path, with which bodies. */
const CASES: Record<string, { upstream?: () => Promise<Child>; count(upstream?: string): [Counted, string, string[]] }> = {
  edge: { upstream: () => constantServer(CHAIN_ID), count: (u) => [{ gateway: { chains: evmChains(u!), limiter: 'memory' } }, '/ethereum-sepolia/rpc', chainIdCall] },
  bare: { count: () => [{ script: 'stubServer.js', args: ['constant', CHAIN_ID, '0xaa36a7'] }, '/', chainIdCall] },
  forward: { upstream: () => constantServer(BLOCK, '0x1'), count: (u) => [{ gateway: { chains: evmChains(u!), limiter: 'memory' } }, '/ethereum/rpc', blockCall] },
  proxy: { upstream: () => constantServer(BLOCK, '0x1'), count: (u) => [{ script: 'stubServer.js', args: ['proxy', u!] }, '/', blockCall] },
  // The required work written flat (edgeFloor.ts): what any structure around it would add to.
  'edge-floor': { count: () => [{ script: 'edgeFloor.js', args: [FLOOR_KEY, '0xaa36a7'], key: FLOOR_KEY }, '/', chainIdCall] },
  'forward-floor': { upstream: () => constantServer(BLOCK, '0x1'), count: (u) => [{ script: 'edgeFloor.js', args: [FLOOR_KEY, '0x1', u!], key: FLOOR_KEY }, '/', blockCall] },
  // The mix's first pass reads the mirror; the counted pass after it answers from the warm cache.
  relay: { upstream: relayMirrorStub, count: (u) => [{ gateway: { chains: ledgerChains(u!), limiter: 'memory' } }, '/hedera-testnet/rpc', relayMix()] },
};

await compile();
const figures: Record<string, number> = {};
for (const name of cases) {
  const spec = CASES[name];
  if (!spec) throw new Error(`unknown case ${name}: ${Object.keys(CASES).join(', ')}`);
  const upstream = await spec.upstream?.();
  try {
    const counted = await instructionsPerRequest(...spec.count(upstream?.info.url));
    figures[name] = counted.main;
    console.log(`${name}: ${fmt(counted.main)} instructions per request on the main thread, ${fmt(counted.all)} with background threads (${fmt(requests)} counted)`);
  } finally {
    await upstream?.stop();
  }
}
// Issue 30's forwarding allowance, counted rather than timed (main threads): the bare pass-through plus the edge's cost
// over bare node:http.
const { edge, bare, forward, proxy } = figures;
if ([edge, bare, forward, proxy].every((f) => f !== undefined)) {
  const allowance = proxy + edge - bare;
  const over = forward - allowance;
  console.log(
    `forward allowance: bare pass-through ${fmt(proxy)} + the edge's cost over bare node:http ${fmt(edge - bare)} = ${fmt(allowance)} instructions; ` +
      `the gateway forwarding ${fmt(forward)} (${fmt(Math.abs(over))} ${over > 0 ? 'over' : 'under'}, ${fmt((100 * over) / allowance, 1)}%)`,
  );
  const [edgeFloor, forwardFloor] = [figures['edge-floor'], figures['forward-floor']];
  // The same rule for the flat floor: forwarding by it may cost the pass-through plus its own answering's cost over bare.
  if (edgeFloor !== undefined && forwardFloor !== undefined) {
    const floorAllowance = proxy + edgeFloor - bare;
    console.log(`the flat floor: its allowance ${fmt(floorAllowance)}, forwarding ${fmt(forwardFloor)} (${fmt(forwardFloor - floorAllowance)} over, ${fmt((100 * (forwardFloor - floorAllowance)) / floorAllowance, 1)}%)`);
  }
}
