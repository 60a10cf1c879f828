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
}

const job = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Job;
const u = new URL(job.url);
const started = process.cpuUsage();
const result = await autocannon({
  url: u.origin,
  connections: job.connections,
  duration: job.seconds,
  requests: job.bodies.map((body) => ({
    method: 'POST',
    path: u.pathname,
    headers: { 'content-type': 'application/json', ...job.headers },
    body,
  })),
});
const used = process.cpuUsage(started);
process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    total: result.requests.total,
    // What generating the load cost the shared cores.
    cpuMs: (used.user + used.system) / 1000,
  }),
);
