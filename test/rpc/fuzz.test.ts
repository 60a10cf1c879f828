/**
 * Property-based: random JSON-RPC bodies and batches (valid, invalid, deep, huge numbers, repeated keys, odd types) sent
 * to /rpc through the whole gateway. Fixed seed and bounded counts, so a failure replays and the suite stays short.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { isLosslessNumber, parse as losslessParse } from 'lossless-json';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const SEED = 20261123;

/** A generated request: its raw JSON text, and the id text a response must carry when one is owed. */
interface Generated {
  text: string;
  /** The id's JSON text when the request is a valid call with an id (so an answer with exactly that id is owed). */
  owed?: string;
  /** Every id text the answer may carry for this entry. */
  allowed: string[];
}

const member = (key: string, raw: string) => `${JSON.stringify(key)}:${raw}`;

const jsonValue = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
const hugeNumber = fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((n) => n.toString());
const deep = fc.integer({ min: 1, max: 20_000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`);
const address = fc.constant('"0x0000000000000000000000000000000000000001"');

const idArb = fc.oneof(
  fc.integer().map((n) => ({ raw: String(n), valid: true })),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }).map((n) => ({ raw: String(n), valid: true })),
  fc.bigInt({ min: -(2n ** 70n), max: -(2n ** 53n) }).map((n) => ({ raw: String(n), valid: true })),
  fc.string({ maxLength: 12 }).map((s) => ({ raw: JSON.stringify(s), valid: true })),
  fc.constant({ raw: 'null', valid: true }),
  fc.oneof(fc.constant('true'), fc.constant('{}'), fc.constant('[1]')).map((raw) => ({ raw, valid: false })),
);

const methodArb = fc.oneof(
  fc.constantFrom('eth_blockNumber', 'eth_chainId', 'eth_getBalance', 'eth_call', 'eth_getLogs', 'eth_feeHistory', 'net_version', 'eth_getBlockByNumber', 'eth_estimateGas'),
  fc.constantFrom('hardhat_setBalance', 'admin_peers', 'debug_traceTransaction', 'evm_mine', 'personal_sign', 'eth_sendRawTransaction'),
  fc.string({ maxLength: 20 }),
);

const paramsArb = fc.oneof(
  fc.array(fc.oneof(jsonValue, hugeNumber, address, fc.constant('"latest"'), fc.constant('"0xffffffffffffffffffffffff"')), { maxLength: 4 }).map((xs) => `[${xs.join(',')}]`),
  // An object whose keys repeat, with numbers no double holds.
  fc.tuple(hugeNumber, jsonValue).map(([n, v]) => `[{"to":"0x0000000000000000000000000000000000000001","data":"0x","data":"0x01","value":${n}},${v}]`),
  fc.dictionary(fc.string({ maxLength: 6 }), jsonValue.map((v) => JSON.parse(v)), { maxKeys: 3 }).map((o) => JSON.stringify(o)),
  deep,
  fc.constantFrom('5', '"x"', 'null', 'true'),
);

/** One request object, as text; valid or not in every part. */
const requestArb: fc.Arbitrary<Generated> = fc
  .record(
    {
      jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('"2.0"') }, { weight: 1, arbitrary: fc.constantFrom('"1.0"', '2', 'null') }),
      id: fc.option(idArb, { freq: 6 }),
      method: fc.oneof({ weight: 8, arbitrary: methodArb.map((m) => ({ raw: JSON.stringify(m), valid: true })) }, { weight: 1, arbitrary: fc.constantFrom('1', 'null', '[]').map((raw) => ({ raw, valid: false })) }),
      params: fc.option(paramsArb, { freq: 6 }),
      duplicateId: fc.option(idArb, { freq: 8 }),
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  )
  .map((r) => {
    const members = [member('jsonrpc', r.jsonrpc), member('method', r.method.raw)];
    if (r.params) members.push(member('params', r.params));
    if (r.id) members.push(member('id', r.id.raw));
    // A repeated id: the last one counts, as JSON.parse has it.
    if (r.id && r.duplicateId) members.push(member('id', r.duplicateId.raw));
    const id = r.id && r.duplicateId ? r.duplicateId : r.id;
    const paramsOk = r.params == null || /^[[{]/.test(r.params);
    const valid = r.jsonrpc === '"2.0"' && r.method.valid && paramsOk && (id == null || id.valid);
    const allowed = ['null', ...(id?.valid ? [id.raw] : [])];
    return { text: `{${members.join(',')}}`, owed: valid && id ? id.raw : undefined, allowed };
  });

const nonObject: fc.Arbitrary<Generated> = fc.oneof(jsonValue, hugeNumber, deep).map((text) => ({ text, allowed: ['null'] }));

/** A whole body: one request, a batch, a stray value, or text that is not JSON. */
const bodyArb: fc.Arbitrary<{ text: string; entries: Generated[]; batch: boolean }> = fc.oneof(
  { weight: 6, arbitrary: requestArb.map((g) => ({ text: g.text, entries: [g], batch: false })) },
  {
    weight: 4,
    arbitrary: fc.array(fc.oneof({ weight: 6, arbitrary: requestArb }, { weight: 1, arbitrary: nonObject }), { minLength: 1, maxLength: 12 }).map((entries) => ({
      text: `[${entries.map((e) => e.text).join(',')}]`,
      entries,
      batch: true,
    })),
  },
  { weight: 1, arbitrary: nonObject.map((g) => ({ text: g.text, entries: [], batch: false })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((text) => ({ text, entries: [], batch: false })) },
);

/** The id's JSON text as the client would read it back (numbers exactly, without rounding). */
function idText(id: unknown): string {
  return isLosslessNumber(id) ? id.value : JSON.stringify(id);
}

function expectResponseShape(r: unknown): string {
  expect(r).to.be.an('object');
  const o = r as Record<string, unknown>;
  expect(o.jsonrpc).to.equal('2.0');
  expect(o).to.have.property('id');
  expect('result' in o !== 'error' in o, 'exactly one of result and error').to.equal(true);
  if ('error' in o) {
    const e = o.error as { code: unknown; message: unknown };
    expect(isLosslessNumber(e.code) && Number.isInteger(Number(e.code.value)), 'integer error code').to.equal(true);
    expect(e.message).to.be.a('string');
  }
  return idText(o.id);
}

describe('fuzz: random bodies on /rpc through the gateway', function () {
  this.timeout(120_000);
  let t: TestGateway;

  before(async () => {
    t = await startTestGateway();
  });
  after(() => t?.close());

  async function post(network: string, text: string) {
    const res = await fetch(`${t.gw.url}/${network}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.key }, body: text });
    return { status: res.status, text: await res.text() };
  }

  async function check(network: string, body: { text: string; entries: Generated[]; batch: boolean }) {
    const res = await post(network, body.text);
    expect(res.status, `${res.status} for ${body.text.slice(0, 300)}: ${res.text.slice(0, 300)}`).to.be.below(500);
    if (res.text === '') {
      expect(res.status).to.equal(204);
      expect(body.entries.every((e) => e.owed === undefined)).to.equal(true);
      return;
    }
    const parsed = losslessParse(res.text);
    const answers = Array.isArray(parsed) ? parsed : [parsed];
    const ids = answers.map(expectResponseShape);
    const allowed = new Set(body.entries.flatMap((e) => e.allowed).concat('null'));
    for (const id of ids) expect(allowed.has(id), `id ${id} was never sent: ${body.text.slice(0, 300)}`).to.equal(true);
    // Whole-body errors (parse error, empty or oversized batch) carry id null; otherwise every owed id is answered.
    if (answers.length === 1 && ids[0] === 'null' && (answers[0] as { error?: unknown }).error && !body.batch) return;
    const owed = body.entries.map((e) => e.owed).filter((id): id is string => id !== undefined);
    const remaining = [...ids];
    for (const id of owed) {
      const at = remaining.indexOf(id);
      expect(at, `owed id ${id} missing in ${res.text.slice(0, 300)}`).to.be.at.least(0);
      remaining.splice(at, 1);
    }
  }

  async function alive(network: string) {
    const res = await post(network, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}');
    expect(res.status).to.equal(200);
    expect(JSON.parse(res.text).result).to.match(/^0x[0-9a-f]+$/);
    expect((await fetch(`${t.gw.url}/healthz`)).status).to.equal(200);
  }

  it('the issue example: a repeated key and an id above 2^53 answer 200 with the id exact', async () => {
    const res = await post(
      'ethereum-sepolia',
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000001","data":"0x","data":"0x01"},"latest"]}',
    );
    expect(res.status).to.equal(200);
    expect(res.text).to.match(/^\{"jsonrpc":"2.0","id":12345678901234567890,"result":/);
  });

  for (const [network, runs] of [
    ['ethereum-sepolia', 2_000],
    ['hedera-testnet', 600],
  ] as const) {
    it(`${network}: never 5xx, always JSON-RPC responses, ids echoed exactly, gateway alive (${runs} bodies, seed ${SEED})`, async () => {
      await fc.assert(
        fc.asyncProperty(bodyArb, (body) => check(network, body)),
        { seed: SEED, numRuns: runs, endOnFailure: true },
      );
      await alive(network);
    });
  }
});
