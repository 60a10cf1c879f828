/**
 * What the usage page costs to draw: the server-side SVG and HTML of a busy key (every API on four networks, traffic
 * and refusals in each of the 48 hours), per render, against a baseline of stringifying the same report as JSON (what
 * `GET /usage` does). Part of `npm run bench`; `npx tsx bench/usagePage.ts` runs it alone. Reports, asserts nothing.
 */
import { fileURLToPath } from 'node:url';
import { usagePage } from '../src/usage/pageHtml.js';
import { REPORT_HOURS, type UsageReport } from '../src/usage/report.js';

const ROUNDS = 2_000;

export interface UsagePageCost {
  renderUs: number;
  jsonUs: number;
  htmlBytes: number;
  series: number;
}

function busyReport(): UsageReport {
  const hours = Array.from({ length: REPORT_HOURS }, (_, i) => new Date(Date.UTC(2026, 10, 21, 9) + i * 3_600_000).toISOString());
  const series = ['rpc', 'rest', 'graphql', 'beta-graphql', 'mcp'].flatMap((api, a) =>
    ['ethereum', 'ethereum-sepolia', 'hedera', 'hedera-testnet'].map((network, n) => ({
      api,
      network,
      requests: hours.map((_, h) => ((h * 37 + a * 11 + n * 5) % 900) + 100),
      limited: hours.map((_, h) => (h + a + n) % 7 === 0 ? 3 : 0),
    })),
  );
  const totals = { requests: hours.map((_, h) => series.reduce((s, x) => s + x.requests[h], 0)), limited: hours.map((_, h) => series.reduce((s, x) => s + x.limited[h], 0)) };
  return {
    keyId: 'key_0123456789ab',
    name: 'bench',
    plan: 'startup',
    requestsPerSecond: 200,
    month: '2026-11',
    quota: { used: 1_234_567, limit: 50_000_000, remaining: 48_765_433, resetsAt: '2026-12-01T00:00:00.000Z' },
    hours,
    series,
    totals,
  };
}

function usPer(rounds: number, run: () => unknown): number {
  for (let i = 0; i < 200; i++) run();
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) run();
  return Number(process.hrtime.bigint() - started) / rounds / 1_000;
}

export function measureUsagePage(): UsagePageCost {
  const report = busyReport();
  return {
    renderUs: usPer(ROUNDS, () => usagePage(report)),
    jsonUs: usPer(ROUNDS, () => JSON.stringify(report)),
    htmlBytes: Buffer.byteLength(usagePage(report)),
    series: report.series.length,
  };
}

export function describeUsagePageCost(c: UsagePageCost): string {
  return `usage page: ${c.renderUs.toFixed(0)} µs per render (${c.series} series x ${REPORT_HOURS} hours, ${Math.round(c.htmlBytes / 1024)} KiB of HTML and SVG), against ${c.jsonUs.toFixed(0)} µs for the same report as JSON`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(describeUsagePageCost(measureUsagePage()));
