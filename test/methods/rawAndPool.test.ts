/**
 * The official relay's methods that only read what the relay already has: debug_getRaw* (RLP of what eth_* answer),
 * debug_getBadBlocks, web3_sha3, and txpool_* (this relay's submissions awaiting their consensus receipt), against
 * the ledger sandbox through the real SDK.
 */
import { expect } from 'chai';
import { JsonRpcProvider, Transaction, Wallet, decodeRlp, getAddress, hexlify, keccak256, toUtf8Bytes } from 'ethers';
import { startLedgerSandbox } from '../../packages/sandbox/src/index.js';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { trieRoot, indexKey } from '../../src/ledger/trie.js';
import { call, result, sandboxRelay } from '../ledger/helpers.js';
import { serveRpc } from './rpcServer.js';

const CHAIN_ID = 296;
const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`;

describe('raw encodings, web3_sha3 and the pending pool', function () {
  let sandbox: Awaited<ReturnType<typeof startLedgerSandbox>>;
  let relay: LedgerRelay;
  let server: { url: string; close: () => Promise<void> };
  let provider: JsonRpcProvider;
  let wallet: Wallet;
  let signed: string;
  let hash: string;

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
    relay = sandboxRelay(CHAIN_ID, sandbox);
    server = await serveRpc(relay);
    provider = new JsonRpcProvider(server.url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
    wallet = new Wallet(sandbox.accounts[0].privateKey, provider);
  });
  after(async () => {
    provider?.destroy();
    await server?.close();
    await relay?.close();
    await sandbox?.close();
  });

  it('txpool_* show a submission while it awaits its consensus receipt, and nothing once it has run', async () => {
    const to = sandbox.accounts[1].address;
    signed = await wallet.signTransaction(await wallet.populateTransaction({ to, value: 10n ** 10n, type: 2 }));
    hash = Transaction.from(signed).hash!;
    let done = false;
    const sending = result(relay, 'eth_sendRawTransaction', [signed]).finally(() => (done = true));
    let seen: any;
    while (!done && !seen) {
      // The pool answers without I/O: let the submission's own I/O run between looks.
      await new Promise((resolve) => setImmediate(resolve));
      const content = await result(relay, 'txpool_content');
      if (Object.keys(content.pending).length > 0) seen = { content, from: await result(relay, 'txpool_contentFrom', [wallet.address]), status: await result(relay, 'txpool_status') };
    }
    expect(await sending).to.equal(hash);
    expect(seen, 'the submission was never seen pending').to.not.equal(undefined);
    const nonce = String(Transaction.from(signed).nonce);
    const pooled = seen.content.pending[wallet.address][nonce];
    expect(pooled).to.deep.include({ hash, from: wallet.address, to: getAddress(to), blockHash: `0x${'0'.repeat(64)}`, blockNumber: null, type: '0x2', value: '0x2540be400' });
    expect(seen.from).to.deep.equal({ pending: { [nonce]: pooled }, queued: {} });
    expect(seen.status).to.deep.equal({ pending: '0x1', queued: '0x0' });
    expect(await result(relay, 'txpool_status')).to.deep.equal({ pending: '0x0', queued: '0x0' });
    expect(await result(relay, 'txpool_content')).to.deep.equal({ pending: {}, queued: {} });
  });

  it('debug_getRawTransaction gives back the envelope the sender signed; 0x for an unknown hash', async () => {
    expect(await result(relay, 'debug_getRawTransaction', [hash])).to.equal(signed);
    expect(await result(relay, 'debug_getRawTransaction', [UNKNOWN_HASH])).to.equal('0x');
  });

  it('debug_getRawHeader and debug_getRawBlock encode the block eth_getBlockByNumber answers; 0x for an unknown block', async () => {
    const receipt = await result(relay, 'eth_getTransactionReceipt', [hash]);
    const block = await result(relay, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
    const header = decodeRlp(await result(relay, 'debug_getRawHeader', [receipt.blockNumber])) as string[];
    expect(header).to.have.length(17);
    // Quantities are whole bytes, as the official relay encodes them (`0x1` is 0x01).
    expect([header[0], header[2], header[5], BigInt(header[8])]).to.deep.equal([block.parentHash, '0x0000000000000000000000000000000000000321', block.receiptsRoot, BigInt(block.number)]);
    expect(await result(relay, 'debug_getRawHeader', [block.hash])).to.equal(await result(relay, 'debug_getRawHeader', [receipt.blockNumber]));
    const raw = decodeRlp(await result(relay, 'debug_getRawBlock', [receipt.blockNumber])) as any[];
    expect(raw.slice(0, 17)).to.deep.equal(header);
    expect(raw.slice(17)).to.deep.equal([[signed], [], []]);
    expect(await result(relay, 'debug_getRawBlock', ['0xffffff'])).to.equal('0x');
    expect(await result(relay, 'debug_getRawHeader', [UNKNOWN_HASH])).to.equal('0x');
  });

  it('a block number the mirror node refuses as too long (past any real block) is no block, as a number it does not have', async () => {
    // The mirror node takes block numbers of at most 10 digits and answers 400 past them (the official suites ask 0xffffffffffff).
    const far = '0xffffffffffff';
    expect(await result(relay, 'debug_getRawHeader', [far])).to.equal('0x');
    expect(await result(relay, 'debug_getRawBlock', [far])).to.equal('0x');
    expect(await result(relay, 'debug_getRawReceipts', [far])).to.deep.equal([]);
    expect(await result(relay, 'eth_getBlockByNumber', [far, false])).to.equal(null);
  });

  it("debug_getRawReceipts are the receipts the block's receiptsRoot commits to; [] for an unknown block", async () => {
    const receipt = await result(relay, 'eth_getTransactionReceipt', [hash]);
    const block = await result(relay, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
    const raws: string[] = await result(relay, 'debug_getRawReceipts', [receipt.blockNumber]);
    expect(raws).to.have.length(block.transactions.length);
    expect(trieRoot(raws.map((r, i) => [indexKey(i), Buffer.from(r.slice(2), 'hex')]))).to.equal(block.receiptsRoot);
    expect(await result(relay, 'debug_getRawReceipts', ['0xffffff'])).to.deep.equal([]);
  });

  it('debug_getBadBlocks is empty; web3_sha3 is keccak-256 of the bytes given', async () => {
    expect(await result(relay, 'debug_getBadBlocks')).to.deep.equal([]);
    const bytes = hexlify(toUtf8Bytes('hello'));
    expect(await result(relay, 'web3_sha3', [bytes])).to.equal(keccak256(bytes));
    expect(await call(relay, 'web3_sha3', ['hello'])).to.have.nested.property('error.code', -32602);
  });
});
