/**
 * The relay on the ledger sandbox's history, whose HTS token transfer the sandbox's mirror node lists both as
 * synthetic logs and as a synthetic contract result (as mirror nodes from v0.158 do): the block shows the transfer
 * once, built from its logs, in its transactions, its receipts and the look-up by hash.
 */
import { expect } from 'chai';
import { startLedgerSandbox } from '../../packages/sandbox/src/index.js';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { result, sandboxRelay } from '../ledger/helpers.js';

const CHAIN_ID = 296;

describe('ledger relay on the sandbox’s HTS transfer, listed as a synthetic contract result', function () {
  this.timeout(60_000);
  let sandbox: Awaited<ReturnType<typeof startLedgerSandbox>>;
  let relay: LedgerRelay;

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0, history: true });
    relay = sandboxRelay(CHAIN_ID, sandbox);
  });

  after(async () => {
    await relay?.close();
    await sandbox?.close();
  });

  it('shows the transfer once, sent by the token, in the full block, its hashes, its receipts and by hash', async () => {
    const transfer = sandbox.chain.transactions().find((tx) => tx.name === 'CRYPTOTRANSFER' && (tx.tokenTransfers?.length ?? 0) > 0)!;
    const hash = transfer.hash.slice(0, 66);
    const number = `0x${transfer.blockNumber.toString(16)}`;
    const listed = await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results?block.number=${transfer.blockNumber}`).then((r) => r.json());
    expect(listed.results.map((r: any) => r.hash), 'the mirror node lists the synthetic row').to.include(hash);

    const full = await result(relay, 'eth_getBlockByNumber', [number, true]);
    expect(full.transactions.filter((t: any) => t.hash === hash)).to.have.length(1);
    const token = full.transactions.find((t: any) => t.hash === hash);
    expect(token).to.include({ from: token.to, gas: '0x61a80', gasPrice: '0xfe' });
    const hashes = await result(relay, 'eth_getBlockByNumber', [number, false]);
    expect(hashes.transactions).to.deep.equal(full.transactions.map((t: any) => t.hash));
    const receipts = await result(relay, 'eth_getBlockReceipts', [number]);
    expect(receipts.map((r: any) => r.transactionHash)).to.deep.equal(hashes.transactions);
    expect(await result(relay, 'eth_getTransactionByHash', [hash])).to.include({ hash, from: token.to });
    expect(await result(relay, 'eth_getTransactionReceipt', [hash])).to.include({ transactionHash: hash, from: '0x0000000000000000000000000000000000000000' });
  });
});
