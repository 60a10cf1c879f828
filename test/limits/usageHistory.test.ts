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
});
