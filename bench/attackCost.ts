/**
 * What each attack of the abuse-resistance section costs the gateway, alone (no legitimate load): its CPU per second
 * while the attack runs, beside its idle CPU, and per attack unit (a request, connection, handshake or message the
 * attacker sent). CPU time, unlike a p99, is barely moved by other work on the shared cores, so two versions of the
 * gateway compare by it. Run `node --import tsx bench/attackCost.ts` after `npm run bench` compiled the gateway
 * (bench/.build); `COST_ATTACKS=mcpKeyless,slowHeaders` picks attacks, `COST_SECONDS` sets each window (5). The attacker
 * runs on core 0 and the gateway on core 1, as in the section.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { ATTACKS, attackedGateway, pin, sepoliaStub, startAttacker, warmAll } from './attacks.js';
import type { AttackKind } from './attacker.js';
import { cpuMsOf, fmt, type Child } from './harness.js';

const SECONDS = Number(process.env.COST_SECONDS ?? 5);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** User and system CPU, ms, of the process's main thread and of its other threads (V8's compiler and GC helpers). */
function threadsCpuMs(pid: number): { main: number; others: number } {
  const out = { main: 0, others: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
    out[tid === String(pid) ? 'main' : 'others'] += (Number(fields[11]) + Number(fields[12])) * 10;
  }
  return out;
}

async function measure(kind: AttackKind, stub: Child): Promise<void> {
  const gw = await attackedGateway(stub);
  try {
    pin(gw.pid, '1');
    await warmAll(gw);
    await sleep(1_500);
    const idleFrom = cpuMsOf(gw.pid);
    await sleep(2_000);
    const idlePerSecond = (cpuMsOf(gw.pid) - idleFrom) / 2;
    const [cpu, threads, started] = [cpuMsOf(gw.pid), threadsCpuMs(gw.pid), performance.now()];
    const attacker = startAttacker(kind, gw, true);
    await attacker.ready;
    await sleep(SECONDS * 1_000);
    const seconds = (performance.now() - started) / 1_000;
    const used = cpuMsOf(gw.pid) - cpu;
    const after = threadsCpuMs(gw.pid);
    const stats = await attacker.stop();
    const perUnit = stats.sent > 0 ? `${fmt(((used - idlePerSecond * seconds) * 1_000) / stats.sent)} us a unit over idle` : 'no units';
    const answers = Object.entries(stats.answers)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([k, n]) => `${k} x${fmt(n)}`)
      .join(', ');
    console.log(
      `${kind}: gateway CPU ${fmt(used / seconds)} ms/s over ${fmt(seconds, 1)} s with the ramp (idle ${fmt(idlePerSecond)}; main thread ` +
        `${fmt(after.main - threads.main)} ms, others ${fmt(after.others - threads.others)} ms); ${fmt(stats.sent)} units, ${perUnit}; ` +
        `${fmt(stats.refused)} refused, ${fmt(stats.accepted)} accepted, ${fmt(stats.socketsOpen)} sockets open at most${answers ? ` (${answers})` : ''}`,
    );
  } finally {
    await gw.stop();
  }
}

const only = process.env.COST_ATTACKS?.split(',');
const stub = await sepoliaStub();
try {
  for (const { kind } of ATTACKS.filter((a) => !only || only.includes(a.kind))) await measure(kind, stub);
} finally {
  await stub.stop();
}
