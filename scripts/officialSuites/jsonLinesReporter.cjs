/**
 * Mocha reporter for the official-suites runner: one JSON line per test outcome, written as it happens, so a suite
 * whose process never ends (some do after their last hook) or is stopped still leaves every result it reached.
 * Hooks that fail are reported as failures under their hook title, as mocha's own reporters do.
 */
'use strict';
const fs = require('node:fs');

function JsonLinesReporter(runner, options) {
  const file = options.reporterOptions.output;
  fs.writeFileSync(file, '');
  const write = (state, test, err) =>
    fs.appendFileSync(file, `${JSON.stringify({ state, fullTitle: test.fullTitle(), ...(err ? { error: String(err.message ?? err) } : {}) })}\n`);
  runner.on('pass', (test) => write('passed', test));
  runner.on('fail', (test, err) => write('failed', test, err));
  runner.on('pending', (test) => write('pending', test));
  runner.once('end', () => fs.appendFileSync(file, `${JSON.stringify({ end: true })}\n`));
}

module.exports = JsonLinesReporter;
