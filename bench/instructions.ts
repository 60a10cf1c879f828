/**
 * Instructions per request, counted by valgrind's callgrind: the same figure twice for the same build whatever else the
 * shared cores run, where CPU time per request moves by 10-20% between runs. For comparing two builds of a hot path
 * (the edge, forwarding) by a few percent. `node --import tsx bench/instructions.ts [cases] [requests]`: cases
 * (comma-separated) among `edge` (the gateway answering eth_chainId itself), `forward` (eth_getBlockByNumber forwarded
 * to a constant upstream) and `relay` (the relay's production mix on a warm cache); 3,000 requests each by default,
 * counted after five times as many uncounted ones (`INSTRUCTIONS_WARM_UP`). The gateway runs under valgrind, about 50x slower, so its requests seldom
 * overlap: the figure is a request's own work, without the batching a loaded server gets. `INSTRUCTIONS_OUT=<dir>` keeps
 * each counted window's callgrind file there (`callgrind_annotate` names Node's and V8's built-in functions; JIT-compiled
 * JavaScript shows as addresses).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
const CONCURRENCY = 8;

/** The bench's gateway under callgrind with counting off until asked; resolves once it prints its ready line. */
async function gatewayUnderCallgrind(job: Omit<GatewayJob, 'dataDir'>, outFile: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-keys-'));
  const script = fileURLToPath(new URL('./.build/bench/gatewayServer.js', import.meta.url));
  const proc = spawn(
    'valgrind',
    ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outFile}`, process.execPath, '--expose-gc', script, JSON.stringify({ ...job, dataDir })],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const info = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    let buffered = '';
    proc.stdout.on('data', (chunk) => {
      buffered += chunk;
      const line = buffered.split('\n').find((l) => l.startsWith('{'));
      if (line && buffered.includes(`${line}\n`)) resolve(JSON.parse(line));
    });
    proc.once('exit', (code) => reject(new Error(`the gateway under valgrind exited with ${code}`)));
  });
  return { info, proc, dataDir };
}

/** `count` requests of `bodies` (in turn), CONCURRENCY at a time, each answered before the next on its lane. */
async function send(pool: Pool, path: string, key: string, bodies: string[], count: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const body = bodies[next++ % bodies.length];
      const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json', 'x-api-key': key }, body });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

async function instructionsPerRequest(job: Omit<GatewayJob, 'dataDir'>, path: string, bodies: string[]): Promise<number> {
  // INSTRUCTIONS_OUT=<dir> keeps each case's counted window there, for callgrind_annotate.
  const kept = process.env.INSTRUCTIONS_OUT;
  const outFile = join(kept ?? tmpdir(), `callgrind.${process.pid}.${Date.now()}.out`);
  const { info, proc, dataDir } = await gatewayUnderCallgrind(job, outFile);
  const pool = new Pool(info.url, { connections: CONCURRENCY });
  try {
    await send(pool, path, info.key, bodies, warmUp);
    await run('callgrind_control', ['-i', 'on', String(proc.pid)]);
    await send(pool, path, info.key, bodies, requests);
    await run('callgrind_control', ['-i', 'off', String(proc.pid)]);
    await run('callgrind_control', ['--dump', String(proc.pid)]);
  } finally {
    await pool.close();
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
  // The dump asked for holds the counted window; the one written at exit holds only what followed (no counting then).
  // `totals`, not the header's `summary`, which reads 0 when counting was switched on after the start.
  const totals = readFileSync(`${outFile}.1`, 'utf8').match(/^totals: (\d+)/m);
  if (!kept) rmSync(`${outFile}.1`, { force: true });
  rmSync(outFile, { force: true });
  if (!totals) throw new Error('callgrind wrote no totals');
  return Number(totals[1]) / requests;
}

await compile();
for (const name of cases) {
  let upstream: Child | undefined;
  try {
    let figure: number;
    if (name === 'edge') {
      upstream = await constantServer('{"jsonrpc":"2.0","id":1,"result":"0xaa36a7"}');
      figure = await instructionsPerRequest({ chains: evmChains(upstream.info.url), limiter: 'memory' }, '/ethereum-sepolia/rpc', [call('eth_chainId', [])]);
    } else if (name === 'forward') {
      const block = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { number: '0x1', hash: `0x${'ab'.repeat(32)}`, transactions: [] } });
      upstream = await constantServer(block, '0x1');
      figure = await instructionsPerRequest({ chains: evmChains(upstream.info.url), limiter: 'memory' }, '/ethereum/rpc', [call('eth_getBlockByNumber', ['0x1', false])]);
    } else if (name === 'relay') {
      upstream = await relayMirrorStub();
      // The mix's first pass reads the mirror; the counted pass after it answers from the warm cache.
      figure = await instructionsPerRequest({ chains: ledgerChains(upstream.info.url), limiter: 'memory' }, '/hedera-testnet/rpc', relayMix());
    } else throw new Error(`unknown case ${name}: edge, forward or relay`);
    console.log(`${name}: ${fmt(figure)} instructions per request (${fmt(requests)} counted)`);
  } finally {
    await upstream?.stop();
  }
}
