/**
 * The relay's cold row alone, as many times as asked: each time a fresh gateway process (the bench's, with
 * BENCH_NODE_FLAGS) on a fresh counting mirror stub, idle for 2 s, then one load run of the production mix. Prints
 * each run's throughput, then the same process's again once warm, the gateway's CPU per request (main thread and V8's helper threads apart) and mirror requests
 * per relay request, to compare designs of the cold path without the rest of the bench:
 * `flock /tmp/bench.lock node --import tsx bench/coldRelay.ts [runs]`; COLD_AMOUNT (below) for a fixed amount of work. With BENCH_NODE_FLAGS=--cpu-prof the gateway
 * writes its profile into the working directory when it stops.
 */
import { appendFileSync, readdirSync } from 'node:fs';
import { compile, cpuMsOf, fmt, gateway, load, median, statCpuMs } from './harness.js';
import { ledgerChains, mirrorRequests, relayMirrorStub, relayMix } from './relayMix.js';

/** CPU (ms) of a process's main thread and of its other threads (V8's compiler and GC helpers, libuv), from /proc. */
function threadCpuMs(pid: number): { main: number; helpers: number } {
  let all = 0;
  let main = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const used = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
    all += used;
    if (tid === String(pid)) main = used;
  }
  return { main, helpers: all - main };
}

await compile();
const runs = Number(process.argv[2] ?? 3);
const bodies = relayMix();
// COLD_AMOUNT=n sends n requests a phase instead of SECONDS of load: the same work whatever the machine's other load.
const amount = process.env.COLD_AMOUNT ? Number(process.env.COLD_AMOUNT) : undefined;
// COLD_FLAGS='a|b' alternates gateways started with node flags a and with b (BENCH_NODE_FLAGS for each), run by run, so
// a drift of the shared machine lands on both; in a configuration, `stub=<n>` warms the mirror stub up on n requests
// instead of the relay section's STUB_WARM_UP_REQUESTS, `node=<path>` runs the gateway on that Node binary and
// `idle=<ms>` leaves it idle that long (2,000 by default) before the cold phase.
// COLD_WARM=0 skips the warm phase.
const configs = (process.env.COLD_FLAGS ?? process.env.BENCH_NODE_FLAGS ?? '').split('|');
const phases = process.env.COLD_WARM === '0' ? ['cold'] : ['cold', 'then warm'];
const seen = configs.map(() => ({ rps: [] as number[], cpuUs: [] as number[] }));
for (let i = 0; i < runs; i++) {
  for (const [c, config] of configs.entries()) {
    const words = config.split(' ').filter(Boolean);
    const setting = (name: string) => words.find((w) => w.startsWith(`${name}=`))?.slice(name.length + 1);
    process.env.BENCH_NODE_FLAGS = words.filter((w) => !/^(stub|node|idle)=/.test(w)).join(' ');
    process.env.BENCH_GATEWAY_NODE = setting('node') ?? '';
    const stubWarmUp = setting('stub');
    const mirror = await relayMirrorStub(stubWarmUp === undefined ? undefined : Number(stubWarmUp));
    const gw = await gateway(ledgerChains(mirror.info.url));
    await new Promise((r) => setTimeout(r, Number(setting('idle') ?? 2_000)));
    for (const phase of phases) {
      // Where this phase starts in the gateway's V8 traces (BENCH_NODE_FLAGS=--trace-gc, ...), when they are kept.
      if (process.env.BENCH_CHILD_STDOUT) appendFileSync(process.env.BENCH_CHILD_STDOUT, `=== run ${i + 1}, ${phase}\n`);
      const before = { mirror: await mirrorRequests(mirror.info.url), cpu: cpuMsOf(gw.pid), threads: threadCpuMs(gw.pid), stub: cpuMsOf(mirror.pid) };
      const f = await load(`${gw.info.url}/hedera-testnet/rpc`, bodies, { 'x-api-key': gw.info.key! }, undefined, undefined, amount);
      const cpuMs = cpuMsOf(gw.pid) - before.cpu;
      const stubMs = cpuMsOf(mirror.pid) - before.stub;
      const threads = threadCpuMs(gw.pid);
      const mirrorPer = ((await mirrorRequests(mirror.info.url)) - before.mirror) / f.total;
      const us = (ms: number) => fmt((ms * 1000) / f.total, 1);
      if (phase === 'cold') {
        seen[c].rps.push(f.rps);
        seen[c].cpuUs.push((cpuMs * 1000) / f.total);
      }
      console.log(
        `run ${i + 1}, [${config}] ${phase}: ${fmt(f.rps)} req/s, p99 ${fmt(f.p99, 1)} ms, ${f.total} requests (${f.non2xx} non-2xx, ${f.errors} errors); ` +
          `gateway CPU ${fmt(cpuMs)} ms, ${us(cpuMs)} us/request (main thread ${us(threads.main - before.threads.main)}, helper threads ${us(threads.helpers - before.threads.helpers)}); ` +
          `${fmt(mirrorPer, 3)} mirror requests per relay request; mirror stub CPU ${fmt(stubMs)} ms, load generator ${fmt(f.cpuMs)} ms`,
      );
    }
    await Promise.all([gw.stop(), mirror.stop()]);
  }
}
for (const [c, config] of configs.entries()) {
  console.log(`[${config}] cold, median of ${runs}: ${fmt(median(seen[c].rps))} req/s, gateway CPU ${fmt(median(seen[c].cpuUs), 1)} us/request`);
}
