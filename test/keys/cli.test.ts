import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monthOf } from '../../src/limits/calendar.js';
import { openKeyStore } from '../../src/keys/store.js';
import { inOneMonth } from '../support/calendar.js';
import { keyConfig, monthDelta } from '../support/keyStores.js';

const CLI = join(import.meta.dirname, '../../src/keys/cli.ts');

describe('keys CLI (child process, embedded store in a temp dir)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'keys-cli-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Runs `npm run keys -- ...args` as the operator would, against this suite's store only. */
  function keys(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', GATEWAY_CONFIG: '' };
    return new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', CLI, ...args], { env }, (error, out, err) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, out, err });
      });
    });
  }

  let id = '';
  let key = '';

  it('creates a key with a plan and the relay_beta flag, printing the key once', async () => {
    const res = await keys('create', '--name', 'Indexer', '--plan', 'developer', '--relay-beta', '--network', 'testnet');
    expect(res.code, res.err).to.equal(0);
    id = /^id:\s+(key_\w+)/m.exec(res.out)?.[1] ?? '';
    key = /^(pk_prod_[A-Za-z0-9_-]+)$/m.exec(res.out)?.[1] ?? '';
    expect(id).not.to.equal('');
    expect(key).not.to.equal('');
    expect(res.out).to.match(/plan:\s+developer/).and.match(/flags:\s+relay_beta/).and.match(/network:\s+testnet/);
  });

  it('lists and shows the key without ever printing it again', async () => {
    const list = await keys('list');
    expect(list.code).to.equal(0);
    expect(list.out).to.include(id).and.include('developer').and.include('active');
    const show = await keys('show', id);
    expect(show.out).to.include(id).and.include('Indexer');
    expect(list.out + show.out).not.to.include(key);
  });

  it('changes the plan, and refuses unknown plans and ids clearly', async () => {
    expect((await keys('set-plan', id, 'startup')).out).to.match(/plan:\s+startup/);
    const badPlan = await keys('set-plan', id, 'platinum');
    expect(badPlan.code).to.equal(1);
    expect(badPlan.err).to.include('Unknown plan').and.include('free, developer, startup, premium, enterprise');
    const badId = await keys('show', 'key_000000000000');
    expect(badId.code).to.equal(1);
    expect(badId.err).to.include('No API key with that id');
    const badCommand = await keys('destroy', id);
    expect(badCommand.code).to.equal(2);
    expect(badCommand.err).to.include('unknown command').and.include('Usage:');
  });

  it("reports this month's usage against the plan's quota", () =>
    inOneMonth(async () => {
      const month = monthOf(Date.now());
      const store = await openKeyStore(keyConfig({ dataDir }));
      await store.addUsage([monthDelta(id, month, 1234)]);
      await store.close();
      const res = await keys('usage', id);
      expect(res.code, res.err).to.equal(0);
      expect(res.out).to.include(`${month}: 1234 of 50000000 requests`);
    }));

  it('revokes a key, and says so when the gateway holds the embedded store', async () => {
    const revoked = await keys('revoke', id);
    expect(revoked.code).to.equal(0);
    expect(revoked.out).to.match(/status:\s+revoked/);
    const store = await openKeyStore(keyConfig({ dataDir }));
    try {
      const busy = await keys('list');
      expect(busy.code).to.equal(1);
      expect(busy.err).to.include('in use by another process').and.include('DATABASE_URL');
    } finally {
      await store.close();
    }
  });
});
