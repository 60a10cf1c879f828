/**
 * Start-up of `npm start` (the compiled gateway, `node dist/main.js`; run `npm run build` first), with and without the
 * sandboxes' starting history: time to the printed banner (listening, demo key ready), then to the first answer from
 * the ledger sandbox (started on first use, history included) and from an EVM devnet. Medians of RUNS fresh starts,
 * each on an empty data directory. Run: `npx tsx bench/startup.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 18_480);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

interface StartFigures {
  bannerMs: number;
  ledgerMs: number;
  devnetMs: number;
}

async function startOnce(history: boolean, dataDir: string): Promise<StartFigures> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: String(PORT), PRIVATE_PORT: String(PORT + 1), DATA_DIR: dataDir, SANDBOX_HISTORY: String(history), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const key = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /Demo API key:\s+(\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`gateway exited with ${code} before its banner`)));
    });
    const bannerMs = performance.now() - t0;
    const base = `http://127.0.0.1:${PORT}`;
    const blocks = await fetch(`${base}/hedera-testnet/api/v1/blocks?limit=2`, { headers: { 'x-api-key': key } });
    if (!blocks.ok) throw new Error(`ledger answered ${blocks.status}`);
    const ledgerMs = performance.now() - t0;
    const rpc = await fetch(`${base}/ethereum-sepolia/rpc`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    if (!rpc.ok) throw new Error(`devnet answered ${rpc.status}`);
    return { bannerMs, ledgerMs, devnetMs: performance.now() - t0 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);

const report = (label: string, runs: StartFigures[]) => {
  const pick = (k: keyof StartFigures) => median(runs.map((r) => r[k]));
  console.log(`${label}: banner ${pick('bannerMs')} ms, first ledger answer ${pick('ledgerMs')} ms, first devnet answer ${pick('devnetMs')} ms (medians of ${RUNS})`);
};

for (const history of [false, true]) {
  const fresh: StartFigures[] = [];
  const again: StartFigures[] = [];
  const kept = mkdtempSync(join(tmpdir(), 'startup-bench-'));
  for (let i = 0; i < RUNS; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'startup-bench-'));
    fresh.push(await startOnce(history, dir));
    rmSync(dir, { recursive: true, force: true });
  }
  await startOnce(history, kept);
  for (let i = 0; i < RUNS; i++) again.push(await startOnce(history, kept));
  rmSync(kept, { recursive: true, force: true });
  report(`history ${history ? 'on ' : 'off'}, empty data dir   `, fresh);
  report(`history ${history ? 'on ' : 'off'}, existing data dir`, again);
}
