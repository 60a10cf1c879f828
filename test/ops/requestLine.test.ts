import { Writable } from 'node:stream';
import { expect } from 'chai';
import fc from 'fast-check';
import pino from 'pino';
import { createLogger, logRequest } from '../../src/log.js';

/** A logger made by createLogger whose lines land in `lines`. */
function capturing(level = 'info'): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
  return { logger: createLogger(level, sink), lines };
}

/** The line as pino writes it, without its time. */
const untimed = (line: string) => line.replace(/"time":\d+,/, '');

const KEY = `pk_prod_${'Ab9'.repeat(11)}`;

const FIELD_SETS: Array<Record<string, unknown>> = [
  {
    requestId: 'r-1',
    host: 'ethereum.localhost:8080',
    path: '/ethereum/v1/***/rpc',
    httpMethod: 'POST',
    api: 'rpc',
    network: 'ethereum',
    status: 200,
    ms: 0.123,
    keyId: 'key_0123456789ab',
    rpcMethods: ['eth_chainId'],
    calls: 1,
  },
  // A key where it should never be, quotes, control characters and non-ASCII text, nesting, values pino leaves out.
  {
    requestId: 'r-2',
    host: `evil"host\n${KEY}`,
    path: `/hedera/v1/${KEY}/rpc?x=é`,
    network: undefined,
    status: 401,
    ms: Number.NaN,
    internalErrors: [`upstream said GET /api/v1/accounts?key=${KEY}`, 'ünïcödé ✓'],
    detail: { nested: { deeper: [1, 'two', null, true] } },
  },
  {},
];

describe('request line', () => {
  for (const [i, fields] of FIELD_SETS.entries()) {
    it(`is written as pino writes logger.info(fields, 'request'), scrubbed the same (field set ${i + 1})`, () => {
      const fast = capturing();
      const viaPino = capturing();
      logRequest(fast.logger, fields);
      viaPino.logger.info(fields, 'request');
      expect(fast.lines).to.have.length(1);
      expect(untimed(fast.lines[0])).to.equal(untimed(viaPino.lines[0]));
      expect(fast.lines[0]).to.match(/^\{"level":"info","time":\d+,/);
      expect(fast.lines[0]).not.to.include(KEY);
    });
  }

  it('writes any strings and lists of them as pino does: escapes, controls, non-ASCII, keys, holes', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }), fc.constantFrom(`a/v1/${KEY}/b`, 'x"y\\z', '\u2028'));
    const item = fc.oneof(text, fc.constant(undefined), fc.constant(null), fc.integer(), fc.record({ m: text }));
    fc.assert(
      fc.property(text, text, fc.array(item, { maxLength: 4 }), (host, path, list) => {
        const fields = { requestId: host, host, path, network: path, rpcMethods: list, internalErrors: [path, host] };
        const fast = capturing();
        const viaPino = capturing();
        logRequest(fast.logger, fields);
        viaPino.logger.info(fields, 'request');
        expect(untimed(fast.lines[0])).to.equal(untimed(viaPino.lines[0]));
      }),
      { seed: 20261126, numRuns: 500 },
    );
    // A lone surrogate is kept, escaped as JSON.stringify escapes it, where pino's line turns it into U+FFFD.
    const lone = capturing();
    logRequest(lone.logger, { requestId: 'a\ud800b' });
    expect(JSON.parse(lone.lines[0]).requestId).to.equal('a\ud800b');
  });

  it('goes through pino for what pino redacts or JSON cannot hold, and not at all below the level', () => {
    const fast = capturing();
    const viaPino = capturing();
    for (const fields of [{ headers: { authorization: KEY } }, { big: 10n }]) {
      logRequest(fast.logger, fields);
      viaPino.logger.info(fields, 'request');
    }
    expect(fast.lines.map(untimed)).to.deep.equal(viaPino.lines.map(untimed));
    expect(fast.lines.join('\n')).not.to.include(KEY);

    const quiet = capturing('warn');
    logRequest(quiet.logger, FIELD_SETS[0]);
    expect(quiet.lines).to.deep.equal([]);
  });

  it('goes through pino for a logger not made by createLogger', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    logRequest(logger, { requestId: 'r-3' });
    expect(JSON.parse(lines[0])).to.deep.include({ requestId: 'r-3', msg: 'request' });
  });
});
