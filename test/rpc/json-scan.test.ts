import { expect } from 'chai';
import fc from 'fast-check';
import { plainSingleResult, rawIds, scanJson } from '../../src/rpc/jsonScan.js';

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

  it('reads a plain answer to one call (id 0, result) by its prefix, taking only what JSON.parse reads as one', () => {
    const plain = (value: unknown, ws: string) => `{"jsonrpc":"2.0","id":0,"result":${JSON.stringify(value, null, ws.length || undefined)}${ws}}${ws}`;
    fc.assert(fc.property(fc.jsonValue(), space, (value, ws) => void expect(JSON.parse(plainSingleResult(plain(value, ws))!)).to.deep.equal(JSON.parse(JSON.stringify(value)))), { seed: SEED, numRuns: 2000 });
    // Cut off or changed anywhere: either refused (scanJson reads it then), or JSON with exactly those members and that result.
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.string({ maxLength: 2 }), (value, at, insert) => {
        const text = plain(value, '');
        const i = at % (text.length + 1);
        for (const changed of [text.slice(0, i), text.slice(0, i) + insert + text.slice(i + 1), text.slice(0, i) + insert + text.slice(i)]) {
          const result = plainSingleResult(changed);
          if (result === undefined) continue;
          const parsed = parses(changed);
          expect(parsed.ok, `accepts ${JSON.stringify(changed)}`).to.equal(true);
          const answer = (parsed as { value: Record<string, unknown> }).value;
          expect(Object.keys(answer)).to.deep.equal(['jsonrpc', 'id', 'result']);
          expect([answer.jsonrpc, answer.id]).to.deep.equal(['2.0', 0]);
          expect(JSON.parse(result)).to.deep.equal(answer.result);
        }
      }),
      { seed: SEED, numRuns: 3000 },
    );
    for (const other of ['{"jsonrpc":"2.0","result":"0x1","id":0}', '{"jsonrpc":"2.0","id":0,"result":"0x1","error":{}}', '{"jsonrpc":"2.0","id":0,"result":"0x1"}x', '{"jsonrpc":"2.0","id":0,"result":01}']) {
      expect(plainSingleResult(other), other).to.equal(undefined);
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
