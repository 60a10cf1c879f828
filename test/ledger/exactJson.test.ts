import { expect } from 'chai';
import fc from 'fast-check';
import { parseExact } from '../../src/ledger/exactJson.js';

/** JSON text of a value whose bigints are written as plain integer tokens. */
const stringify = (value: unknown): string => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `@@${v}@@` : v)).replace(/"@@(-?\d+)@@"/g, '$1');

/** What an exact parse gives a bigint: a number when it is safe, else itself. */
const exact = (value: unknown): unknown => {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  if (Array.isArray(value)) return value.map(exact);
  // JSON writes -0 as 0.
  if (value === 0) return 0;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exact(v)]));
  return value;
};

describe('exact JSON of mirror-node answers', () => {
  it('keeps every integer beyond 2^53 exact and parses the rest as JSON.parse does', () => {
    const leaf = fc.oneof(
      fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
      fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n }),
      fc.integer(),
      // Doubles written as integer digits past 2^53 read back as bigints, as they always have.
      fc.double({ noNaN: true, min: -1e15, max: 1e15 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d) || Math.abs(d) >= 1e21),
      fc.stringMatching(/^[0-9a-f:,[ ]{0,40}$/),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 6 }), fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 6 })),
    }));
    fc.assert(
      fc.property(value, (v) => {
        expect(parseExact(stringify(v))).to.deep.equal(exact(v));
      }),
      { numRuns: 1000 },
    );
  });

  it('finds a long integer at the start of the text and after white space', () => {
    expect(parseExact('123456789012345678901')).to.equal(123456789012345678901n);
    expect(parseExact('{"amount":\n  -90071992547409930}')).to.deep.equal({ amount: -90071992547409930n });
    expect(parseExact('{"hash":"0x1234567890123456789012","n":9007199254740991}')).to.deep.equal({ hash: '0x1234567890123456789012', n: 9007199254740991 });
  });
});
