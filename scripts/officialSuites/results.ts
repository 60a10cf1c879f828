/**
 * The suites' outcomes as jsonLinesReporter.cjs writes them, and the comparison of two relays' results.
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
  /** Set when the run produced no results (mocha could not start, or the spec did not load). */
  crashed?: string;
}

/** A line of jsonLinesReporter.cjs. */
type ReporterLine = { state: TestState; fullTitle: string; error?: string } | { end: true };

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
 * Counts as mocha does: failures include hooks (a failed `before all` hook is one failure, and the tests under it are
 * not run, so they appear nowhere), and a test that calls done() twice is counted as passed and as failed.
 */
export function parseReporterLines(text: string): SuiteResult & { ended: boolean } {
  const lines = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ReporterLine);
  const tests: TestResult[] = lines.flatMap((l) =>
    'end' in l ? [] : [{ title: shortTitle(l.fullTitle), state: l.state, ...(l.state === 'failed' ? { error: firstLine(l.error) } : {}) }],
  );
  const count = (state: TestState) => tests.filter((t) => t.state === state).length;
  return { passing: count('passed'), failing: count('failed'), pending: count('pending'), tests, ended: lines.some((l) => 'end' in l) };
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
