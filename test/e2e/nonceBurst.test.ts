/**
 * Bursts of transactions sent back to back through the gateway to the ledger sandbox, as the official relay's
 * sendRawTransactionExtension suite sends them (its "@nonce-ordering" group): each with its own nonce, none waiting for
 * the one before. The relay must get them to consensus in nonce order.
 */
import { expect } from 'chai';
import { FetchRequest, JsonRpcProvider, Wallet, isError } from 'ethers';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const TINYBAR = 10n ** 10n;

describe('nonce ordering of transaction bursts on the ledger chain', function () {
  let t: TestGateway;
  let provider: JsonRpcProvider;
  const [first, second, third, recipient] = sandboxAccounts(4);

  before(async () => {
    t = await startTestGateway();
    provider = new JsonRpcProvider(new FetchRequest(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`), undefined, { cacheTimeout: -1, pollingInterval: 50 });
  });
  after(async () => {
    provider?.destroy();
    await t?.close();
  });

  /** Sends `count` transfers from `wallet` at once, nonces from its pending count on; resolves when all are mined. */
  async function burst(wallet: Wallet, count: number) {
    const start = await provider.getTransactionCount(wallet.address, 'pending');
    const sent = await Promise.all(Array.from({ length: count }, (_, i) => wallet.sendTransaction({ to: recipient.address, value: TINYBAR, nonce: start + i })));
    const receipts = await Promise.all(sent.map((tx) => tx.wait()));
    const mined = await Promise.all(sent.map((tx) => provider.getTransaction(tx.hash)));
    return { start, receipts, nonces: mined.map((tx) => tx!.nonce) };
  }

  it('mines a burst of 10 transactions from one sender, each with its nonce', async () => {
    const wallet = new Wallet(first.privateKey, provider);
    const { start, receipts, nonces } = await burst(wallet, 10);
    expect(receipts.map((r) => r?.status)).to.deep.equal(Array(10).fill(1));
    expect(nonces).to.deep.equal(Array.from({ length: 10 }, (_, i) => start + i));
    expect(await provider.getTransactionCount(wallet.address, 'latest')).to.equal(start + 10);
    expect(await provider.getTransactionCount(wallet.address, 'pending')).to.equal(start + 10);
  });

  it('mines bursts of 5 from each of 3 senders sent at the same time', async () => {
    const wallets = [first, second, third].map((a) => new Wallet(a.privateKey, provider));
    const results = await Promise.all(wallets.map((w) => burst(w, 5)));
    for (const { start, receipts, nonces } of results) {
      expect(receipts.map((r) => r?.status)).to.deep.equal(Array(5).fill(1));
      expect(nonces).to.deep.equal(Array.from({ length: 5 }, (_, i) => start + i));
    }
    const counts = await Promise.all(wallets.map((w) => provider.getTransactionCount(w.address, 'latest')));
    expect(counts).to.deep.equal(results.map((r) => r.start + 5));
  });

  it('still refuses a nonce past a gap', async () => {
    const wallet = new Wallet(third.privateKey, provider);
    const start = await provider.getTransactionCount(wallet.address, 'pending');
    const err = await wallet.sendTransaction({ to: recipient.address, value: TINYBAR, nonce: start + 2 }).catch((e: unknown) => e);
    expect(isError(err, 'NONCE_EXPIRED') || /Nonce too high/.test(String((err as Error).message))).to.equal(true, String(err));
    expect(await provider.getTransactionCount(wallet.address, 'pending')).to.equal(start);
  });
});
