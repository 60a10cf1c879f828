/**
 * The pending pool (txpool_*) shared by gateway instances on one Redis (a private redis-server): a submission through
 * one gateway shows at the other until its receipt; entries are bounded and expire; a Redis fault leaves each
 * instance its own submissions and fails nothing. Senders' turns likewise (their pending nonces: pendingNonce.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { JsonRpcProvider, Transaction, Wallet } from 'ethers';
import { startLedgerSandbox, type LedgerSandbox } from '../../packages/sandbox/src/index.js';
import { SharedSubmissions } from '../../src/ledger/sharedPendingPool.js';
import { eventually, RedisChild } from '../limits/support.js';
import { rpc, startTestGateway, withLedgerNetwork, type TestGateway } from '../support/gateway.js';

const CHAIN_ID = 296;
const sender = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const raw = (n: number, bytes = 8) => `0x${n.toString(16).padStart(2 * bytes, '0')}`;

describe("ledger relay: one pending pool and senders' turns across instances on Redis", function () {
  this.timeout(60_000);
  let redis: RedisChild;
  let pools: SharedSubmissions[] = [];

  before(async () => (redis = await RedisChild.start()));
  after(async () => redis?.down());
  afterEach(async () => {
    await Promise.all(pools.map((p) => p.close()));
    pools = [];
  });

  /** Instances' pools for one fresh network on the private Redis. */
  async function instances(count: number, opts = { ttlMs: 60_000, maxEntries: 100, maxBytes: 1 << 20 }) {
    const network = `test-${randomBytes(4).toString('hex')}`;
    const opened = await Promise.all(Array.from({ length: count }, () => SharedSubmissions.open(redis.url, opts)));
    pools.push(...opened);
    return opened.map((p) => p.pool(network, 'http://mirror.test'));
  }

  describe('two gateways on one ledger', () => {
    let sandbox: LedgerSandbox;
    let gateways: TestGateway[] = [];
    before(async () => {
      sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
      const ledger = { mirrorUrl: sandbox.mirrorUrl, consensus: sandbox.consensus, operatorId: sandbox.operator.accountId, operatorKey: String(sandbox.operator.privateKey) };
      const start = () => startTestGateway({ chains: withLedgerNetwork('testnet', { chainId: CHAIN_ID, ledger }), limits: { redisUrl: redis.url } });
      gateways = [await start(), await start()];
    });
    after(async () => {
      await Promise.all(gateways.map((g) => g.close()));
      await sandbox?.close();
    });

    it("txpool_content, _contentFrom and _status on one gateway show a submission made through the other until its receipt", async () => {
      const [a, b] = gateways;
      const call = (g: TestGateway, method: string, params: unknown[] = []) =>
        rpc(`${g.gw.url}/hedera-testnet/v1/${g.key}/rpc`, { jsonrpc: '2.0', id: 1, method, params }).then((r) => r.json);
      const provider = new JsonRpcProvider(`${a.gw.url}/hedera-testnet/v1/${a.key}/rpc`, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 });
      const wallet = new Wallet(sandbox.accounts[0].privateKey, provider);
      const signed = await wallet.signTransaction(await wallet.populateTransaction({ to: sandbox.accounts[1].address, value: 10n ** 10n, type: 2 }));
      provider.destroy();
      const { hash, nonce } = Transaction.from(signed);
      let done = false;
      const sending = call(a, 'eth_sendRawTransaction', [signed]).finally(() => (done = true));
      let seen: any;
      while (!done && !seen) {
        const content = (await call(b, 'txpool_content')).result;
        if (Object.keys(content.pending).length > 0) seen = { content, from: (await call(b, 'txpool_contentFrom', [wallet.address])).result, status: (await call(b, 'txpool_status')).result };
      }
      expect((await sending).result).to.equal(hash);
      expect(seen, 'the submission was never seen pending at the other gateway').to.not.equal(undefined);
      const pooled = seen.content.pending[wallet.address][String(nonce)];
      expect(pooled).to.deep.include({ hash, from: wallet.address, blockNumber: null });
      expect(seen.from).to.deep.equal({ pending: { [String(nonce)]: pooled }, queued: {} });
      expect(seen.status).to.deep.equal({ pending: '0x1', queued: '0x0' });
      for (const g of gateways) expect((await call(g, 'txpool_status')).result).to.deep.equal({ pending: '0x0', queued: '0x0' });
    });
  });

  it("an entry one instance never removed (it died mid-submission) is gone from the others' view after the TTL", async () => {
    const [died, b, c] = await instances(3, { ttlMs: 300, maxEntries: 100, maxBytes: 1 << 20 });
    await died.add(sender(1), raw(1));
    expect(await b.from(sender(1))).to.deep.equal([raw(1)]);
    await eventually(async () => (await b.all()).length === 0, 'the entry to expire');
    // Removed by its own instance, an entry goes from every view at once.
    await b.add(sender(2), raw(2));
    expect(await c.all()).to.deep.equal([raw(2)]);
    await b.remove(sender(2), raw(2));
    expect(await c.all()).to.deep.equal([]);
  });

  it('holds at most its entries and bytes, the soonest to expire dropped first; an entry over the byte bound stays local', async () => {
    const [a, b] = await instances(2, { ttlMs: 60_000, maxEntries: 3, maxBytes: 200 });
    for (let n = 1; n <= 5; n++) await a.add(sender(n), raw(n));
    expect((await b.all()).sort()).to.deep.equal([raw(3), raw(4), raw(5)]);
    // Each entry counts its sender and envelope: 61 bytes each, 85 for the next; 183 + 85 passes 200, so the two
    // soonest to expire go.
    await a.add(sender(6), raw(6, 20));
    expect((await b.all()).sort()).to.deep.equal([raw(5), raw(6, 20)].sort());
    await a.add(sender(7), raw(7, 200));
    expect(await b.from(sender(7))).to.deep.equal([]);
    expect(await a.from(sender(7))).to.deep.equal([raw(7, 200)]);
  });

  it("a sender's turn held on one instance holds the sender on the others until it ends; with Redis down each instance's own turns order it", async () => {
    const network = `test-${randomBytes(4).toString('hex')}`;
    const opened = await Promise.all([0, 1].map(() => SharedSubmissions.open(redis.url)));
    pools.push(...opened);
    const [a, b] = opened.map((p) => p.senders(network, 'http://mirror.test').locks);
    const endA = await a.acquire(sender(1));
    let bHolds = false;
    const bTurn = b.acquire(sender(1)).then((end) => ((bHolds = true), end));
    // Another sender is not held.
    (await b.acquire(sender(2)))();
    await new Promise((r) => setTimeout(r, 100));
    expect(bHolds, "b took the sender's turn while a held it").to.equal(false);
    endA();
    (await bTurn)();
    await redis.down();
    try {
      const end = await a.acquire(sender(1));
      let second = false;
      const next = a.acquire(sender(1)).then((e) => ((second = true), e));
      await new Promise((r) => setTimeout(r, 50));
      expect(second).to.equal(false);
      end();
      (await next)();
    } finally {
      await redis.up();
    }
  });

  it("with Redis down an instance's own submissions still show, nothing fails, and the shared view returns with Redis", async () => {
    const [a, b] = await instances(2);
    await a.add(sender(1), raw(1));
    await redis.down();
    try {
      await b.add(sender(2), raw(2));
      expect(await b.all()).to.deep.equal([raw(2)]);
      expect(await b.from(sender(2))).to.deep.equal([raw(2)]);
      await b.remove(sender(2), raw(2));
      expect(await b.all()).to.deep.equal([]);
    } finally {
      await redis.up();
    }
    // A Redis that came back empty holds nothing; what is added now is shared again.
    await eventually(async () => {
      await a.add(sender(3), raw(3));
      return (await b.all()).includes(raw(3));
    }, 'the instances back on Redis');
  });
});
