/** The runner's summary: the table, the regressions, the tests failing on both, and the JSON report. */
import { writeFileSync } from 'node:fs';
import type { RelayName } from './relays.js';
import { countsCell, failingOnBoth, regressions, type SuiteResult } from './results.js';

export type Results = Record<string, Partial<Record<RelayName, SuiteResult>>>;

export function summary(results: Results): string {
  const rows = [['suite', 'ours (pass / fail / pending)', 'official relay (pass / fail / pending)']];
  for (const [suite, r] of Object.entries(results)) rows.push([suite, countsCell(r.ours), countsCell(r.official)]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  '));
  const lost = Object.entries(results).flatMap(([suite, r]) => (r.official && r.ours ? regressions(suite, r.official, r.ours) : []));
  lines.push('', `Passing on the official relay, not on ours: ${lost.length}`);
  for (const l of lost) lines.push(`  [${l.suite}] ${l.title}`, `      ${l.error}`);
  const both = Object.entries(results).flatMap(([suite, r]) => (r.official && r.ours ? failingOnBoth(r.official, r.ours).map((f) => ({ suite, ...f })) : []));
  lines.push('', `Failing on both: ${both.length}`);
  for (const f of both) lines.push(`  [${f.suite}] ${f.title}`, `      official: ${f.official}`, `      ours:     ${f.ours}`);
  return lines.join('\n');
}

export function writeReport(file: string, meta: Record<string, unknown>, results: Results): void {
  const lost = Object.entries(results).flatMap(([suite, r]) => (r.official && r.ours ? regressions(suite, r.official, r.ours) : []));
  const both = Object.entries(results).flatMap(([suite, r]) => (r.official && r.ours ? failingOnBoth(r.official, r.ours).map((f) => ({ suite, ...f })) : []));
  writeFileSync(file, `${JSON.stringify({ ...meta, results, passOnOfficialFailOnOurs: lost, failingOnBoth: both }, null, 2)}\n`);
}
