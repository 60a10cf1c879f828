/**
 * The load generator, run as its own process so it does not share a CPU budget with the server it measures.
 * Reads a job from the JSON file named by argv[2], prints autocannon's figures as JSON on stdout.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

interface Job {
  url: string;
  headers?: Record<string, string>;
  /** Request bodies cycled through by every connection (a traffic mix is a shuffled list). */
  bodies: string[];
  connections: number;
  seconds: number;
  /** A fixed number of requests instead of `seconds` of load: the same work, for comparing CPU spent on it. */
  amount?: number;
}

const job = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Job;
const u = new URL(job.url);
const started = process.cpuUsage();
// autocannon's histogram keeps whole milliseconds, a fifth of a sub-10 ms p99; its per-response time is exact.
const times: number[] = [];
const result = await new Promise<autocannon.Result>((resolve, reject) => {
  const instance = autocannon(
    {
      url: u.origin,
      connections: job.connections,
      ...(job.amount ? { amount: job.amount } : { duration: job.seconds }),
      requests: job.bodies.map((body) => ({
        method: 'POST',
        path: u.pathname,
        headers: { 'content-type': 'application/json', ...job.headers },
        body,
      })),
    },
    (err, done) => (err ? reject(err) : resolve(done)),
  );
  instance.on('response', (_client, _status, _bytes, ms) => times.push(ms));
});
const used = process.cpuUsage(started);
times.sort((a, b) => a - b);
const quantile = (q: number) => (times.length === 0 ? 0 : times[Math.min(times.length - 1, Math.floor(q * times.length))]);
process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    p50: quantile(0.5),
    p99: quantile(0.99),
    max: times.length === 0 ? 0 : times[times.length - 1],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    total: result.requests.total,
    // What generating the load cost the shared cores.
    cpuMs: (used.user + used.system) / 1000,
  }),
);
