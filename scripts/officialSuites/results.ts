/**
 * Mocha's JSON reporter output reduced to what the comparison needs, and the comparison of two relays' results.
 */

export type TestState = 'passed' | 'failed' | 'pending';

export interface TestResult {
  /** The test's full title (mocha's fullTitle), the key both relays' results are matched on. */
  title: string;
  state: TestState;
  /** First line of the error, for failures. */
  error?: string;
}

export interface SuiteResult {
  passing: number;
  failing: number;
  pending: number;
  tests: TestResult[];
  /** Set when the run produced no report (mocha could not start, or was killed). */
  crashed?: string;
}

interface MochaJsonTest {
  fullTitle: string;
  err?: { message?: string };
}

interface MochaJson {
  stats: { passes: number; failures: number; pending: number };
  passes: MochaJsonTest[];
  failures: MochaJsonTest[];
  pending: MochaJsonTest[];
}

/** The first non-empty line of an error message, with terminal colours removed. */
export function firstLine(message: string | undefined): string {
  const line = (message ?? '').replace(/\x1b\[[0-9;]*m/g, '').split('\n').find((l) => l.trim() !== '');
  return (line ?? '(no message)').trim().slice(0, 400);
}

/** Titles lose the suites' shared prefix ("RPC Server Acceptance Tests Acceptance tests "), which says nothing. */
function shortTitle(fullTitle: string): string {
  return fullTitle.replace(/^RPC Server Acceptance Tests (Acceptance tests )?/, '');
}

/**
 * Failures include hooks: a failed `before all` hook is one failure, and the tests under it are not run, so they
 * appear nowhere. That is how mocha counts, and the counts are reported as mocha gives them.
 */
export function parseMochaJson(text: string): SuiteResult {
  const report = JSON.parse(text) as MochaJson;
  const tests: TestResult[] = [
    ...report.passes.map((t) => ({ title: shortTitle(t.fullTitle), state: 'passed' as const })),
    ...report.failures.map((t) => ({ title: shortTitle(t.fullTitle), state: 'failed' as const, error: firstLine(t.err?.message) })),
    ...report.pending.map((t) => ({ title: shortTitle(t.fullTitle), state: 'pending' as const })),
  ];
  return { passing: report.stats.passes, failing: report.stats.failures, pending: report.stats.pending, tests };
}

export interface Regression {
  suite: string;
  title: string;
  /** Our failure's first line, or "not run" when ours never reached the test (a failed hook before it). */
  error: string;
}

/** Tests that pass on the official relay and do not pass on ours. */
export function regressions(suite: string, official: SuiteResult, ours: SuiteResult): Regression[] {
  const oursByTitle = new Map(ours.tests.map((t) => [t.title, t]));
  return official.tests
    .filter((t) => t.state === 'passed')
    .flatMap((t) => {
      const mine = oursByTitle.get(t.title);
      if (mine?.state === 'passed') return [];
      return [{ suite, title: t.title, error: mine?.state === 'failed' ? mine.error! : mine?.state === 'pending' ? 'pending (skipped)' : (ours.crashed ?? 'not run') }];
    });
}

/** Tests that fail on both relays, with both first lines. */
export function failingOnBoth(official: SuiteResult, ours: SuiteResult): Array<{ title: string; official: string; ours: string }> {
  const oursByTitle = new Map(ours.tests.map((t) => [t.title, t]));
  return official.tests
    .filter((t) => t.state === 'failed' && oursByTitle.get(t.title)?.state === 'failed')
    .map((t) => ({ title: t.title, official: t.error!, ours: oursByTitle.get(t.title)!.error! }));
}

export function countsCell(r: SuiteResult | undefined): string {
  if (!r) return '-';
  if (r.crashed) return `crashed`;
  return `${r.passing} / ${r.failing} / ${r.pending}`;
}
