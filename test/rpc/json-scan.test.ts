import { expect } from 'chai';
import fc from 'fast-check';
import { rawIds, scanJson } from '../../src/rpc/jsonScan.js';

const WANTED = ['id', 'result', 'error'];
/** Fixed, so a failure replays. */
const SEED = 20261123;

function parses(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The scanner must accept exactly what JSON.parse accepts, and read the same members JSON.parse would. */
function agreesWithJsonParse(text: string): void {
  const parsed = parses(text);
  const scanned = scanJson(text, WANTED);
  expect(scanned !== undefined, `accepts ${JSON.stringify(text)}`).to.equal(parsed.ok);
  if (!parsed.ok || !scanned) return;
  const tops = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  expect(scanned.array).to.equal(Array.isArray(parsed.value));
  expect(scanned.objects.length).to.equal(tops.length);
  tops.forEach((top, i) => {
    const o = scanned.objects[i];
    const isObject = top !== null && typeof top === 'object' && !Array.isArray(top);
    expect(o !== undefined).to.equal(isObject);
    if (!o) return;
    expect(JSON.parse(text.slice(o.start, o.end))).to.deep.equal(top);
    WANTED.forEach((name, j) => {
      const has = Object.prototype.hasOwnProperty.call(top, name);
      expect(o.members[j] !== undefined, `${name} in ${text}`).to.equal(has);
      if (has) expect(JSON.parse(o.members[j]!)).to.deep.equal((top as Record<string, unknown>)[name]);
    });
  });
}

const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n  ');
/** A member as nodes write it: the names asked for (sometimes escaped), others, any value. */
const member = fc.tuple(fc.oneof(fc.constantFrom('"id"', '"result"', '"error"', '"i\\u0064"', '"res\\u0075lt"', '"jsonrpc"'), fc.string().map((s) => JSON.stringify(s))), fc.jsonValue());
const objectText = (members: Array<[string, unknown]>, ws: string) => `${ws}{${members.map(([k, v]) => `${ws}${k}${ws}:${ws}${JSON.stringify(v)}${ws}`).join(',')}}${ws}`;
const answers = fc.tuple(fc.array(fc.array(member, { maxLength: 5 }), { maxLength: 4 }), space).map(([objects, ws]) => `[${objects.map((o) => objectText(o, ws)).join(',')}]`);

describe('JSON scanner (ids of requests, members of upstream answers)', () => {
  it('accepts exactly the JSON that JSON.parse accepts and reads the same members, for any value and spacing', () => {
    fc.assert(fc.property(fc.jsonValue(), space, (value, ws) => agreesWithJsonParse(`${ws}${JSON.stringify(value, null, ws.length || undefined)}${ws}`)), { seed: SEED, numRuns: 2000 });
    fc.assert(fc.property(answers, (text) => agreesWithJsonParse(text)), { seed: SEED, numRuns: 1000 });
  });

  it('refuses what is cut off or changed anywhere, as JSON.parse does', () => {
    fc.assert(
      fc.property(answers, fc.nat(), fc.string({ maxLength: 2 }), (text, at, insert) => {
        const i = at % (text.length + 1);
        agreesWithJsonParse(text.slice(0, i));
        agreesWithJsonParse(text.slice(0, i) + insert + text.slice(i + 1));
        agreesWithJsonParse(text.slice(0, i) + insert + text.slice(i));
      }),
      { seed: SEED, numRuns: 3000 },
    );
    // Short strings of JSON's own characters reach the grammar's corners (numbers, escapes, literals, nesting).
    const pieces = fc.constantFrom(...'{}[]",:0123456789-+.eEtrufalsn \\/u"abx'.split(''));
    fc.assert(fc.property(fc.string({ unit: pieces, maxLength: 16 }), (text) => agreesWithJsonParse(text)), { seed: SEED, numRuns: 20_000 });
    for (const text of ['', '01', '-', '1.', '1e+', '.5', '"\\x"', '"\\u12g4"', '"a\u0001"', 'tru', '[1,]', '{"a":1,}', '{"a" 1}', '{1:2}', '{}x', '\ufeff{}']) {
      agreesWithJsonParse(text);
    }
  });

  it('reads deeply nested text without running out of stack', () => {
    const deep = `{"id":1,"result":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(scanJson(deep, WANTED)?.objects[0]?.members[0]).to.equal('1');
    expect(scanJson(deep.slice(0, -1), WANTED)).to.equal(undefined);
  });

  it('gives the exact text of request ids, the last of repeated ones as JSON.parse keeps', () => {
    expect(rawIds('{"jsonrpc":"2.0","id" : 12345678901234567890,"method":"m"}')).to.equal('12345678901234567890');
    expect(rawIds('[{"id":1,"id":98765432109876543210},7,{"method":"m"}]')).to.deep.equal(['98765432109876543210', undefined, undefined]);
  });
});
