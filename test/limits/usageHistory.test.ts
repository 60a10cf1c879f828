import { expect } from 'chai';
import { monthOf } from '../../src/limits/calendar.js';
import { hourOf, UsageRecorder } from '../../src/limits/usageRecorder.js';
import { postgresStoreForSuite } from '../support/keyStores.js';

const DAY = 86_400_000;

describe('hourly usage history (Postgres store)', () => {
  const store = postgresStoreForSuite();

  it('keeps hourly rows for the configured days, deletes older ones, and never touches month counts', async () => {
    const now = Date.now();
    const recorder = new UsageRecorder(store(), 60_000, undefined, 2 * DAY, () => now);
    const tags = { api: 'rpc', network: 'ethereum' };
    recorder.admitted('key_old', now - 3 * DAY, 5, tags);
    recorder.admitted('key_old', now - DAY, 2, tags);
    recorder.refused('key_old', now, tags);
    await recorder.close();
    const rows = await store().hourlyUsage('key_old', 0);
    expect(rows.map((r) => [r.hour, r.outcome, r.count])).to.deep.equal([
      [hourOf(now - DAY), 'ok', 2],
      [hourOf(now), 'limited', 1],
    ]);
    const months = new Map<string, number>();
    for (const at of [now - 3 * DAY, now - DAY]) months.set(monthOf(at), (months.get(monthOf(at)) ?? 0) + (at === now - DAY ? 2 : 5));
    for (const [month, count] of months) expect(await store().usage('key_old', month)).to.equal(count);
  });

  it('adds runs of one key and its tags up across flushes, none lost or counted twice', async () => {
    const now = Date.now();
    const recorder = new UsageRecorder(store(), 60_000, undefined, 2 * DAY, () => now);
    const rpc = { api: 'rpc', network: 'ethereum' };
    for (let i = 0; i < 3; i++) recorder.admitted('key_runs', now, 1, rpc);
    recorder.refused('key_runs', now, rpc);
    recorder.admitted('key_runs', now, 1, rpc);
    expect(recorder.unflushed('key_runs', monthOf(now))).to.equal(4);
    await recorder.flush();
    expect(recorder.unflushed('key_runs', monthOf(now))).to.equal(0);
    recorder.admitted('key_runs', now, 2, rpc);
    recorder.admitted('key_runs', now, 1, { api: 'rest', network: 'hedera' });
    recorder.admitted('key_other', now, 5, rpc);
    expect(recorder.unflushed('key_runs', monthOf(now))).to.equal(3);
    await recorder.close();
    const rows = await store().hourlyUsage('key_runs', 0);
    expect(rows.map((r) => [r.api, r.outcome, r.count]).sort()).to.deep.equal([
      ['rest', 'ok', 1],
      ['rpc', 'limited', 1],
      ['rpc', 'ok', 6],
    ]);
    expect(await store().usage('key_runs', monthOf(now))).to.equal(7);
    expect(await store().usage('key_other', monthOf(now))).to.equal(5);
  });
});
