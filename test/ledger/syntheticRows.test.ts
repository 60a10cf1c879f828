/**
 * An HTS token transfer made through HAPI, in every form mirror nodes have shown it: only as synthetic logs (before
 * v0.157), and also as a synthetic row of /contracts/results (`from: null` in v0.157's candidates, the payer from
 * v0.158, the single lookup too in hiero-mirror-node PR #14305). The relay answers the same for all of them: the
 * transaction once, in the shape the official relay gives a log-only synthetic transaction.
 */
import { expect } from 'chai';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { BLOCKS, BUSY_BLOCK, RESULTS, SYNTHETIC_HASH, startFixtureMirror, type FixtureMirror, type SyntheticMode } from './fixtureMirror.js';
import { call, testRelay } from './helpers.js';

const busy = `0x${BUSY_BLOCK.toString(16)}`;
/** The example results' sender, which also paid for the HTS transfer. */
const PAYER = '0x0000000000000000000000000000000000001f41';
const busyHash = BLOCKS.find((b) => b.number === BUSY_BLOCK).hash.slice(0, 66);

/** Every answer that shows the transfer, as the relay gives it (result or error alike). */
async function answers(mode: SyntheticMode) {
  const mirror: FixtureMirror = await startFixtureMirror({ synthetic: mode });
  const relay: LedgerRelay = testRelay(296, { mirrorUrl: mirror.url });
  try {
    const ask = async (method: string, params: unknown[]) => {
      const outcome = (await call(relay, method, params)) as any;
      return 'error' in outcome ? { error: outcome.error } : { result: outcome.result };
    };
    // Each method on a fresh cache would need a relay each; asking the transaction first and the block after, then the
    // block first, covers both orders of filling the cache.
    return {
      byHash: await ask('eth_getTransactionByHash', [SYNTHETIC_HASH]),
      receipt: await ask('eth_getTransactionReceipt', [SYNTHETIC_HASH]),
      full: await ask('eth_getBlockByNumber', [busy, true]),
      hashes: await ask('eth_getBlockByNumber', [busy, false]),
      fullByHash: await ask('eth_getBlockByHash', [busyHash, true]),
      hashesByHash: await ask('eth_getBlockByHash', [busyHash, false]),
      receipts: await ask('eth_getBlockReceipts', [busy]),
      count: await ask('eth_getBlockTransactionCountByNumber', [busy]),
      byIndex: await ask('eth_getTransactionByBlockNumberAndIndex', [busy, '0x2']),
      logs: await ask('eth_getLogs', [{ fromBlock: busy, toBlock: busy }]),
      rawReceipts: await ask('debug_getRawReceipts', [busy]),
      traced: await ask('debug_traceTransaction', [SYNTHETIC_HASH, { tracer: 'callTracer' }]),
      tracedBlock: await ask('debug_traceBlockByNumber', [busy, { tracer: 'callTracer' }]),
      // At an older block, the payer's count comes from its newest contract result then.
      nonce: await ask('eth_getTransactionCount', [PAYER, '0x12']),
    };
  } finally {
    await relay.close();
    await mirror.close();
  }
}

async function blockFirst(mode: SyntheticMode) {
  const mirror = await startFixtureMirror({ synthetic: mode });
  const relay = testRelay(296, { mirrorUrl: mirror.url });
  try {
    const full = (await call(relay, 'eth_getBlockByNumber', [busy, true])) as any;
    const byHash = (await call(relay, 'eth_getTransactionByHash', [SYNTHETIC_HASH])) as any;
    const receipt = (await call(relay, 'eth_getTransactionReceipt', [SYNTHETIC_HASH])) as any;
    return { full, byHash, receipt };
  } finally {
    await relay.close();
    await mirror.close();
  }
}

describe('ledger relay on HTS transfers the mirror node lists as synthetic contract results', function () {
  this.timeout(60_000);
  let logOnly: Awaited<ReturnType<typeof answers>>;

  before(async () => {
    logOnly = await answers('logs');
  });

  it('shows a log-only transfer once, after the block’s contract results (the reference answers)', () => {
    const hashes = logOnly.hashes.result.transactions;
    expect(hashes).to.deep.equal([...RESULTS.map((r) => r.hash), SYNTHETIC_HASH]);
    expect(logOnly.full.result.transactions.at(-1)).to.include({ hash: SYNTHETIC_HASH, from: '0x0000000000000000000000000000000000000bb9', gasPrice: '0xfe' });
    expect(logOnly.receipts.result).to.have.length(4);
    expect(logOnly.count.result).to.equal('0x4');
    expect(logOnly.byHash.result).to.include({ hash: SYNTHETIC_HASH, transactionIndex: '0x2' });
    expect(logOnly.receipt.result).to.include({ transactionHash: SYNTHETIC_HASH, from: '0x0000000000000000000000000000000000000000' });
    expect(logOnly.traced.result).to.include({ type: 'CALL', gas: '0x61a80', gasUsed: '0x0' });
    expect(logOnly.tracedBlock.result.map((t: any) => t.txHash)).to.deep.equal(hashes);
    expect(logOnly.nonce.result).to.equal(`0x${(RESULTS[0].nonce + 1).toString(16)}`);
  });

  for (const mode of ['rows-null-from', 'rows', 'rows-single'] as const) {
    it(`answers the same when the mirror node also lists it as a contract result (${mode})`, async () => {
      const got = await answers(mode);
      for (const key of Object.keys(logOnly) as Array<keyof typeof logOnly>) expect(got[key], key).to.deep.equal(logOnly[key]);
    });

    it(`answers the same with the block read before the transaction (${mode})`, async () => {
      expect(await blockFirst(mode)).to.deep.equal(await blockFirst('logs'));
    });
  }
});
