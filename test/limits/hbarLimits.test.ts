/**
 * Hbar spending limits, end to end: two gateway instances on one Redis and one Postgres key store, in front of one
 * ledger sandbox driven by the real SDK over gRPC. Ported from the scenarios of the official relay's
 * tests/server/acceptance/hbarLimiter.spec.ts that apply to keys and plans: spend is counted per plan and shared by
 * whoever writes for it, a plan's user is refused once its limit is reached while another plan's still writes, the
 * operator's total budget refuses everyone, and the window's reset opens the budgets again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Wallet } from 'ethers';
import { defaultPlans } from '../../src/config/catalogue.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { transactionsNeeded } from '../../src/ledger/consensus.js';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startLedgerSandbox, type LedgerSandbox } from '../../packages/sandbox/src/index.js';
import { FEES_TINYBAR } from '../../packages/sandbox/src/ledger/chain.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { postgresSchema } from '../support/keyStores.js';
import { needService } from '../support/services.js';
import { ManualClock, RedisChild } from './support.js';

const CHAIN_ID = 296;
/** The sandbox's fee for an EthereumTransaction, paid by the operator (packages/sandbox/src/ledger/chain.ts FEES_TINYBAR). */
const ETH_TX_FEE = 100_000;
/** The largest fee the operator pays for one submission: what each write reserves. */
const MAX_FEE = 200_000;
/** Room for three writes: 0 + 200k, 100k + 200k and 200k + 200k fit; 300k + 200k does not. */
const FREE_LIMIT = 450_000;
const WINDOW_MS = 86_400_000;
const GAS_PRICE = 710_000_000_000n;
const ADMIN_TOKEN = 'hbar-limits-test-operator-token';

describe('hbar spending limits (two instances, one Redis, Postgres)', function () {
  this.timeout(120_000);
  let sandbox: LedgerSandbox;
  let redis: RedisChild;
  let schema: Awaited<ReturnType<typeof postgresSchema>>;
  const clock = new ManualClock(Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 1_000);
  let a: TestGateway;
  let b: TestGateway;
  const nonces = new Map<string, number>();

  const config = (operatorTinybar = 5_000_000_000_000): Partial<ConfigInput> => {
    const plans = defaultPlans();
    plans.free = { ...plans.free, hbarPerKeyTinybar: FREE_LIMIT };
    return {
      chains: {
        hedera: {
          kind: 'ledger',
          displayName: 'Hedera',
          networks: {
            testnet: {
              chainId: CHAIN_ID,
              apis: ['rpc'],
              ledger: {
                mirrorUrl: sandbox.mirrorUrl,
                consensus: sandbox.consensus,
                operatorId: sandbox.operator.accountId,
                operatorKey: sandbox.operator.privateKey,
                maxFeeTinybar: MAX_FEE,
              },
            },
          },
        },
      },
      plans,
      keys: { databaseUrl: schema.url, demoKey: false },
      admin: { token: ADMIN_TOKEN },
      limits: { redisUrl: `redis://127.0.0.1:${redis.port}`, relayPlans: Object.keys(plans), writesPerSecond: 100 },
      hbarLimits: { windowMs: WINDOW_MS, operatorTinybar },
      sandbox: { enabled: false },
    };
  };
  const start = (operatorTinybar?: number) => startTestGateway(config(operatorTinybar), { now: clock.now });

  /** A plain transfer signed by `account`, sent through `gw` with `key`. */
  async function write(gw: TestGateway, key: string, account: number) {
    const wallet = new Wallet(sandbox.accounts[account].privateKey);
    const nonce = nonces.get(wallet.address) ?? 0;
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce,
      gasLimit: 21_000,
      maxFeePerGas: GAS_PRICE,
      maxPriorityFeePerGas: 0,
      to: sandbox.accounts[9].address,
      value: 1n,
    });
    const res = await rpc(`${gw.gw.url}/hedera-testnet/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }, { 'x-api-key': key });
    if (res.json.result) nonces.set(wallet.address, nonce + 1);
    return res;
  }

  const operatorBalance = async () => Number((await (await fetch(`${sandbox.mirrorUrl}/api/v1/balances?account.id=${sandbox.operator.accountId}`)).json()).balances[0].balance);
  const usage = async (gw: TestGateway, key: string) => (await (await fetch(`${gw.gw.url}/usage`, { headers: { 'x-api-key': key } })).json()).hbar;

  before(async function () {
    await needService(this, 'Postgres', 5432);
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
    redis = await RedisChild.start();
    schema = await postgresSchema();
    a = await start();
    b = await start();
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await redis?.down();
    await sandbox?.close();
    await schema?.drop();
  });

  let free: { key: string; id: string };
  let developer: { key: string; id: string };

  it('counts a key\'s writes through either instance against its plan\'s limit, settled to what the records charged the operator', async () => {
    free = await a.newKey('free', []);
    developer = await a.newKey('developer', []);
    const before = await operatorBalance();
    expect((await write(a, free.key, 0)).json.result).to.match(/^0x[0-9a-f]{64}$/);
    expect((await write(b, free.key, 0)).json.result).to.match(/^0x[0-9a-f]{64}$/);
    // The operator paid the EthereumTransaction fee of each, and the budget counts exactly that, not the reservation.
    expect(before - (await operatorBalance())).to.equal(2 * ETH_TX_FEE);
    const report = await usage(b, free.key);
    expect(report.limitTinybar).to.equal(FREE_LIMIT);
    expect(report.spent).to.deep.equal([{ network: 'hedera-testnet', tinybar: 2 * ETH_TX_FEE }]);
  });

  it('refuses the write whose largest fee no longer fits, with HTTP 200, before submitting it, while another plan\'s key still writes', async () => {
    expect((await write(a, free.key, 0)).json.result).to.be.a('string');
    const balance = await operatorBalance();
    const refused = await write(b, free.key, 0);
    expect(refused.status).to.equal(200);
    expect(refused.json.error.code).to.equal(-32606);
    expect(refused.json.error.message).to.match(/^HBAR Rate limit exceeded: this key's hbar budget on hedera-testnet \(plan "free"\) has 150000 of 450000 tinybar left/);
    expect(refused.json.error.data).to.include({ budget: 'key', plan: 'free', network: 'hedera-testnet', limitTinybar: FREE_LIMIT, usedTinybar: 3 * ETH_TX_FEE, neededTinybar: MAX_FEE });
    expect(refused.json.error.data.resetsAt).to.equal(new Date(Math.floor(clock.ms / WINDOW_MS) * WINDOW_MS + WINDOW_MS).toISOString());
    // Refused through the other instance too, and nothing was submitted: the operator paid nothing more.
    expect((await write(a, free.key, 0)).json.error.code).to.equal(-32606);
    expect(await operatorBalance()).to.equal(balance);
    expect((await write(a, developer.key, 1)).json.result).to.be.a('string');
    // Reads are never affected.
    const read = await rpc(`${b.gw.url}/hedera-testnet/rpc`, { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }, { 'x-api-key': free.key });
    expect(read.json.result).to.match(/^0x/);
  });

  it('keeps the spend across a restart of an instance and of Redis', async () => {
    await a.close();
    await redis.down();
    await redis.up();
    a = await start();
    expect((await write(a, free.key, 0)).json.error.code).to.equal(-32606);
    expect((await write(b, free.key, 0)).json.error.code).to.equal(-32606);
    expect((await write(b, developer.key, 1)).json.result).to.be.a('string');
  });

  it('judges from the key store while Redis is down, never admitting what the persisted spend rules out', async () => {
    await redis.down();
    try {
      expect((await write(a, free.key, 0)).json.error.code).to.equal(-32606);
      expect((await write(b, developer.key, 1)).json.result).to.be.a('string');
    } finally {
      await redis.up();
    }
  });

  it('takes a per-key budget set through the admin API', async () => {
    const set = await fetch(`${a.gw.adminUrl}/keys/${free.id}/hbar-limit`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tinybar: 1_000_000 }),
    });
    expect(set.status).to.equal(200);
    expect((await set.json()).hbarLimitTinybar).to.equal(1_000_000);
    // Instance a, which served the change, applies it at once.
    expect((await write(a, free.key, 0)).json.result).to.be.a('string');
  });

  it('opens the budgets again when the window resets', async () => {
    clock.advance(WINDOW_MS);
    const fresh = await b.newKey('free', []);
    for (let i = 0; i < 3; i++) expect((await write(b, fresh.key, 2)).json.result).to.be.a('string');
    expect((await write(a, fresh.key, 2)).json.error.code).to.equal(-32606);
    clock.advance(WINDOW_MS);
    expect((await write(a, fresh.key, 2)).json.result).to.be.a('string');
    expect((await usage(a, fresh.key)).spent[0].tinybar).to.equal(ETH_TX_FEE);
  });

  it('refuses every key once the operator budget of the network is spent', async () => {
    clock.advance(WINDOW_MS);
    await a.close();
    // Room for one write at the largest fee: after it, 100k is spent and another 200k does not fit.
    a = await start(MAX_FEE + ETH_TX_FEE / 2);
    expect((await write(a, developer.key, 1)).json.result).to.be.a('string');
    const refused = await write(a, developer.key, 1);
    expect(refused.json.error.data).to.include({ budget: 'operator', network: 'hedera-testnet', usedTinybar: ETH_TX_FEE });
    expect(refused.json.error.message).to.match(/the operator's hbar budget on hedera-testnet has 150000 of 250000 tinybar left/);
  });
});

describe('hbar spending limits (one instance, embedded store)', function () {
  this.timeout(120_000);
  let dataDir: string;
  let t: TestGateway | undefined;
  // A network without jumbo transactions: large call data then goes through the file service, whose transactions the
  // reservation must cover.
  const start = () => startTestGateway({ keys: { dataDir }, sandbox: { jumboTransactions: false } });

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hbar-limits-'));
  });
  after(async () => {
    await t?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reserves a large deployment\'s file-service transactions too, settles it to all of their fees, and keeps the spend across a restart', async () => {
    t = await start();
    const { key } = await t.newKey('developer', []);
    const wallet = new Wallet(sandboxAccounts(1)[0].privateKey);
    // STOP, then padding: call data past the file-service threshold, uploaded in a FileCreate and two FileAppends.
    const initCode = `0x00${'ab'.repeat(6_000)}`;
    expect(transactionsNeeded(6_001, false)).to.equal(4);
    const raw = await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: 0, gasLimit: 400_000, maxFeePerGas: GAS_PRICE, maxPriorityFeePerGas: 0, data: initCode });
    const sent = await rpc(`${t.gw.url}/hedera-testnet/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }, { 'x-api-key': key });
    expect(sent.json.result).to.match(/^0x[0-9a-f]{64}$/);
    const charged = Number(FEES_TINYBAR.FILECREATE + 2n * FEES_TINYBAR.FILEAPPEND + FEES_TINYBAR.ETHEREUMTRANSACTION);
    const report = async () => (await (await fetch(`${t!.gw.url}/usage`, { headers: { 'x-api-key': key } })).json()).hbar;
    expect((await report()).spent).to.deep.include({ network: 'hedera-testnet', tinybar: charged });

    await t.close();
    t = await start();
    expect((await report()).spent).to.deep.include({ network: 'hedera-testnet', tinybar: charged });
    // A key whose budget holds one write at the largest fee but not four: the large deployment is refused unsent.
    const small = await t.newKey('developer', []);
    await t.gw.keyStore.setHbarLimit(small.id, 3 * 2_000_000_000);
    const other = new Wallet(sandboxAccounts(2)[1].privateKey);
    const big = await other.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: 0, gasLimit: 400_000, maxFeePerGas: GAS_PRICE, maxPriorityFeePerGas: 0, data: initCode });
    const refused = await rpc(`${t.gw.url}/hedera-testnet/rpc`, { jsonrpc: '2.0', id: 2, method: 'eth_sendRawTransaction', params: [big] }, { 'x-api-key': small.key });
    expect(refused.json.error.data).to.include({ budget: 'key', usedTinybar: 0, neededTinybar: 4 * 2_000_000_000, limitTinybar: 3 * 2_000_000_000 });
    const plain = await other.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: 0, gasLimit: 21_000, maxFeePerGas: GAS_PRICE, maxPriorityFeePerGas: 0, to: other.address });
    expect((await rpc(`${t.gw.url}/hedera-testnet/rpc`, { jsonrpc: '2.0', id: 3, method: 'eth_sendRawTransaction', params: [plain] }, { 'x-api-key': small.key })).json.result).to.be.a('string');

    const page = await fetch(`${t.gw.url}/keys/usage`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ key }).toString() });
    const html = await page.text();
    expect(html).to.include(`<tr data-network="hedera-testnet"><td>hedera-testnet</td><td class="n hbar-spent">${charged / 1e8} ℏ</td>`);
  });
});
