import { expect } from 'chai';
import { isGatewayError } from '../../src/errors.js';
import { rateLimitHeaders, refusalError } from '../../src/limits/headers.js';
import { createLimiter } from '../../src/limits/index.js';
import { limitRefusals } from '../../src/limits/metrics.js';
import type { Limiter } from '../../src/limits/types.js';
import { LEDGER_WRITES, limitsConfig, ManualClock, MapUsageStore, testKey } from './support.js';

const START = Date.UTC(2026, 10, 15, 12, 0, 0);

async function refusals(reason: string): Promise<number> {
  return (await limitRefusals.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe('limits: the per-key budget (in memory, injected clock)', () => {
  let clock: ManualClock;
  let limiter: Limiter;
  beforeEach(async () => {
    clock = new ManualClock(START);
    limiter = await createLimiter({ limits: limitsConfig({ writesPerSecond: 2 }), usage: new MapUsageStore(), now: clock.now });
  });
  afterEach(() => limiter.close());

  it('admits one second worth at once and no more', async () => {
    const key = testKey('free', { rps: 10 });
    const decisions = [];
    for (let i = 0; i < 15; i++) decisions.push(await limiter.charge(key, 1));
    expect(decisions.filter((d) => d.allowed)).to.have.length(10);
    expect(decisions.slice(0, 10).map((d) => d.remaining)).to.deep.equal([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(decisions[10]).to.include({ allowed: false, reason: 'rate', limit: 10, remaining: 0, retryAfterSeconds: 1 });
  });

  it('then admits exactly the plan rate under constant overload', async () => {
    const key = testKey('free', { rps: 10 });
    const perSecond: number[] = [];
    for (let second = 0; second < 5; second++) {
      let admitted = 0;
      // A request every 5 ms: twenty times the plan's rate.
      for (let step = 0; step < 200; step++) {
        if ((await limiter.charge(key, 1)).allowed) admitted++;
        clock.advance(5);
      }
      perSecond.push(admitted);
    }
    // The first second: the full burst of 10 at once, then one every 100 ms (9 more before it ends); later seconds get the rate.
    expect(perSecond).to.deep.equal([19, 10, 10, 10, 10]);
  });

  it('has no window edge to burst across: a drained budget refills smoothly', async () => {
    const key = testKey('free', { rps: 10 });
    clock.ms = START + 999; // the end of a wall-clock second, where fixed windows reset
    for (let i = 0; i < 10; i++) expect((await limiter.charge(key, 1)).allowed).to.equal(true);
    clock.ms = START + 1_000; // a new wall-clock second: a fixed window would admit ten more here
    expect((await limiter.charge(key, 1)).allowed).to.equal(false);
    clock.ms = START + 999 + 100; // one emission interval later: exactly one more
    expect((await limiter.charge(key, 1)).allowed).to.equal(true);
    expect((await limiter.charge(key, 1)).allowed).to.equal(false);
  });

  it('charges a batch as one request per call', async () => {
    const key = testKey('free', { rps: 10 });
    const first = await limiter.charge(key, 6);
    expect(first).to.include({ allowed: true, remaining: 4 });
    const second = await limiter.charge(key, 5);
    expect(second).to.include({ allowed: false, reason: 'rate', remaining: 4 });
    expect(await limiter.charge(key, 4)).to.include({ allowed: true, remaining: 0 });
  });

  it('refuses a batch larger than one second worth, saying to split it', async () => {
    const key = testKey('free', { rps: 10 });
    const decision = await limiter.charge(key, 11);
    expect(decision).to.include({ allowed: false, reason: 'rate' });
    const err = refusalError(decision);
    expect(err.message).to.match(/11 calls .* burst of 10; send smaller batches/);
    // Refusing the batch spent nothing.
    expect((await limiter.charge(key, 10)).allowed).to.equal(true);
  });

  it('lets a plan below one request per second make one request per interval', async () => {
    const key = testKey('free', { rps: 0.5 });
    expect((await limiter.charge(key, 1)).allowed).to.equal(true);
    clock.advance(1_999);
    expect(await limiter.charge(key, 1)).to.include({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(1);
    expect((await limiter.charge(key, 1)).allowed).to.equal(true);
  });

  it('shares one budget across everything the key does (the limiter has no notion of network or API)', async () => {
    const key = testKey('free', { rps: 10 });
    const sameKeyElsewhere = { ...key };
    await limiter.charge(key, 7);
    expect(await limiter.charge(sameKeyElsewhere, 4)).to.include({ allowed: false });
    expect(await limiter.charge(testKey('free', { rps: 10 }), 10)).to.include({ allowed: true });
  });

  it('gives transaction submissions their own budget, except for keys approved for heavy writes', async () => {
    const key = testKey('developer');
    expect((await limiter.chargeWrite(key, LEDGER_WRITES)).allowed).to.equal(true);
    expect((await limiter.chargeWrite(key, LEDGER_WRITES)).allowed).to.equal(true);
    const refused = await limiter.chargeWrite(key, LEDGER_WRITES);
    expect(refused).to.include({ allowed: false, reason: 'writes', limit: 2 });
    // Another scope (an EVM network's own budget) is a budget of its own.
    expect((await limiter.chargeWrite(key, { scope: 'ethereum-sepolia', perSecond: 1 })).allowed).to.equal(true);
    expect((await limiter.chargeWrite(key, { scope: 'ethereum-sepolia', perSecond: 1 })).allowed).to.equal(false);
    // Reads are unaffected by the write budget.
    expect((await limiter.charge(key, 1)).allowed).to.equal(true);
    const heavy = testKey('developer', { heavyWrites: true });
    for (let i = 0; i < 20; i++) expect((await limiter.chargeWrite(heavy, LEDGER_WRITES)).allowed).to.equal(true);
  });

  it('counts refusals by reason', async () => {
    const before = { rate: await refusals('rate'), writes: await refusals('writes') };
    const key = testKey('free', { rps: 1 });
    await limiter.charge(key, 1);
    await limiter.charge(key, 1);
    await limiter.chargeWrite(key, LEDGER_WRITES);
    await limiter.chargeWrite(key, LEDGER_WRITES);
    await limiter.chargeWrite(key, LEDGER_WRITES);
    expect(await refusals('rate')).to.equal(before.rate + 1);
    expect(await refusals('writes')).to.equal(before.writes + 1);
  });
});

describe('limits: headers and refusal errors', () => {
  it('sends RateLimit-* on every decision and Retry-After on a refusal', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 10, remaining: 9, resetSeconds: 1 })).to.deep.equal({
      'ratelimit-limit': '10',
      'ratelimit-remaining': '9',
      'ratelimit-reset': '1',
    });
    expect(rateLimitHeaders({ allowed: false, reason: 'rate', limit: 10, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 })).to.include({
      'retry-after': '1',
    });
  });

  it('maps each refusal to its catalogue error: 429, JSON-RPC -32005, the headers attached', () => {
    const base = { allowed: false, limit: 10, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 } as const;
    const names = (['rate', 'quota', 'writes'] as const).map((reason) => refusalError({ ...base, reason }));
    expect(names.map((e) => e.errorName)).to.deep.equal(['RATE_LIMITED', 'QUOTA_EXHAUSTED', 'WRITES_LIMITED']);
    for (const err of names) {
      expect(isGatewayError(err)).to.equal(true);
      expect(err.http).to.equal(429);
      expect(err.rpcCode).to.equal(-32005);
      expect(err.headers).to.include({ 'retry-after': '1', 'ratelimit-remaining': '0' });
    }
  });
});
