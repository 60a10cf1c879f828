import { expect } from 'chai';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { serializeResponse } from '../../src/rpc/jsonrpc.js';
import { validateRpcResult } from '../support/openrpc.js';
import { BLOCKS, BUSY_BLOCK, CONTRACT, RESULTS, RESULT_DETAILS, startFixtureMirror, type FixtureMirror } from './fixtureMirror.js';
import { call, result, testRelay } from './helpers.js';

/** Checked against OpenRPC, but for a failed receipt's `revertReason`, the official relay's field beyond it (docs/relay-differences.md). */
function valid(method: string, value: unknown) {
  const withoutReason = (r: any) => (r && typeof r === 'object' && 'revertReason' in r ? { ...r, revertReason: undefined } : r);
  const spec = JSON.parse(JSON.stringify(Array.isArray(value) ? value.map(withoutReason) : withoutReason(value)));
  expect(validateRpcResult(method, spec), `${method} result against OpenRPC`).to.deep.equal([]);
  return value;
}

describe('ledger relay on real mirror-node example responses', () => {
  let mirror: FixtureMirror;
  let relay: LedgerRelay;

  beforeEach(async () => {
    mirror = await startFixtureMirror();
    relay = testRelay(296, { mirrorUrl: mirror.url });
  });
  afterEach(async () => {
    await relay.close();
    await mirror.close();
  });

  it('eth_chainId and net_version answer in-process, with [] and [null]', async () => {
    expect(valid('eth_chainId', await result(relay, 'eth_chainId', []))).to.equal('0x128');
    expect(await result(relay, 'eth_chainId', [null])).to.equal('0x128');
    expect(valid('net_version', await result(relay, 'net_version'))).to.equal('296');
    expect(mirror.paths).to.deep.equal([]);
  });

  it('eth_getBlockByNumber cuts 48-byte hashes to their first 32 bytes, for blocks and parents alike', async () => {
    const block = valid('eth_getBlockByNumber', await result(relay, 'eth_getBlockByNumber', ['0x12', false])) as any;
    const ledger18 = BLOCKS.find((b) => b.number === 18);
    expect(block.hash).to.equal(ledger18.hash.slice(0, 66));
    expect(block.number).to.equal('0x12');
    expect(block.timestamp).to.equal(`0x${Number(ledger18.timestamp.from.split('.')[0]).toString(16)}`);
    const child = (await result(relay, 'eth_getBlockByNumber', ['0x13', false])) as any;
    expect(child.parentHash).to.equal(block.hash);
    expect(block.transactions).to.deep.equal([]);
  });

  it('a block’s gasLimit follows the block’s hapi_version (0.22.3: 30M), not the per-transaction limit', async () => {
    const block = (await result(relay, 'eth_getBlockByNumber', ['0x12', false])) as any;
    expect(BLOCKS.find((b) => b.number === 18).hapi_version).to.equal('0.22.3');
    expect(block.gasLimit).to.equal('0x1c9c380');
  });

  it('follows links.next to collect a block’s transactions; a mirror node without hbar=false has its tinybar converted to weibar', async () => {
    const block = valid('eth_getBlockByNumber', await result(relay, 'eth_getBlockByNumber', [`0x${BUSY_BLOCK.toString(16)}`, true])) as any;
    expect(block.transactions.map((t: any) => t.hash)).to.deep.equal(RESULTS.map((r) => r.hash));
    const listings = mirror.paths.filter((p) => p.startsWith('/api/v1/contracts/results?'));
    // weibar asked for once; v0.145 refuses the parameter, so the relay asks without it from then on
    expect(listings.filter((p) => p.includes('hbar=false'))).to.have.length(1);
    expect(listings.filter((p) => !p.includes('hbar='))).to.have.length(2);
    await result(relay, 'eth_getTransactionByHash', [RESULT_DETAILS.hash]);
    expect(mirror.paths.filter((p) => p.includes('hbar='))).to.have.length(1);
    // amount 30 tinybar, gas price 0x4a817c80 tinybar per gas
    expect(block.transactions[0].value).to.equal(`0x${(30n * 10n ** 10n).toString(16)}`);
    expect(block.transactions[0].maxFeePerGas).to.equal(`0x${(0x40n * 10n ** 10n).toString(16)}`);
    // the network fee (56 tinybar per gas for EthereumTransaction) is the base fee
    expect(block.baseFeePerGas).to.equal(`0x${(56n * 10n ** 10n).toString(16)}`);
    const hashes = valid('eth_getBlockByNumber', await result(relay, 'eth_getBlockByNumber', ['latest', false])) as any;
    expect(hashes.transactions).to.deep.equal(RESULTS.map((r) => r.hash));
    expect(valid('eth_getBlockTransactionCountByNumber', await result(relay, 'eth_getBlockTransactionCountByNumber', ['latest']))).to.equal('0x3');
  });

  it('a repeated eth_getBlockByNumber for a final block costs no second mirror-node request', async () => {
    const first = await result(relay, 'eth_getBlockByNumber', ['0x13', true]);
    const before = mirror.paths.length;
    expect(before).to.be.greaterThan(0);
    const second = await result(relay, 'eth_getBlockByNumber', ['0x13', true]);
    expect(second).to.deep.equal(first);
    expect(mirror.paths.length).to.equal(before);
    expect(relay.stats().cache.hits).to.be.greaterThan(0);
  });

  it('a final answer kept as text is served byte for byte as it was formatted', async () => {
    const [formatted] = await relay.handle([{ id: '1', method: 'eth_getBlockByNumber', params: ['0x13', true] }], { requestId: 't' } as never);
    const before = mirror.paths.length;
    const [kept] = await relay.handle([{ id: '2', method: 'eth_getBlockByNumber', params: ['0x13', true] }], { requestId: 't' } as never);
    expect(serializeResponse('2', kept)).to.equal(serializeResponse('2', formatted));
    expect(mirror.paths.length).to.equal(before);
  });

  it('concurrent identical requests cost one mirror-node request each lookup', async () => {
    mirror.hold();
    const pending = Array.from({ length: 8 }, () => result(relay, 'eth_getBlockByNumber', ['0x11', false]));
    await new Promise((resolve) => setTimeout(resolve, 50));
    mirror.release();
    const blocks = await Promise.all(pending);
    for (const b of blocks) expect(b).to.deep.equal(blocks[0]);
    expect(mirror.paths.filter((p) => p === '/api/v1/blocks/17')).to.have.length(1);
    expect(relay.stats().cache.coalesced).to.be.greaterThan(0);
  });

  it('eth_getBlockByHash takes the 32-byte hash and finds the 48-byte ledger block', async () => {
    const ledger17 = BLOCKS.find((b) => b.number === 17);
    const block = valid('eth_getBlockByHash', await result(relay, 'eth_getBlockByHash', [ledger17.hash.slice(0, 66), false])) as any;
    expect(block.number).to.equal('0x11');
    expect(valid('eth_getBlockTransactionCountByHash', await result(relay, 'eth_getBlockTransactionCountByHash', [ledger17.hash.slice(0, 66)]))).to.equal('0x0');
  });

  it('not found is null, not an error', async () => {
    const missing = `0x${'ab'.repeat(32)}`;
    for (const [method, params] of [
      ['eth_getBlockByNumber', ['0x99', false]],
      ['eth_getBlockByHash', [missing, true]],
      ['eth_getTransactionByHash', [missing]],
      ['eth_getTransactionReceipt', [missing]],
      ['eth_getBlockTransactionCountByNumber', ['0x99']],
      ['eth_getTransactionByBlockNumberAndIndex', ['0x99', '0x0']],
      ['eth_getTransactionByBlockHashAndIndex', [missing, '0x0']],
    ] as const) {
      expect(await result(relay, method, params), method).to.equal(null);
      valid(method, null);
    }
  });

  it('eth_getTransactionByHash and eth_getTransactionReceipt translate a contract result', async () => {
    const tx = valid('eth_getTransactionByHash', await result(relay, 'eth_getTransactionByHash', [RESULT_DETAILS.hash])) as any;
    const block17 = BLOCKS.find((b) => b.number === 17);
    expect(tx.blockHash).to.equal(block17.hash.slice(0, 66));
    expect(tx.value).to.equal(`0x${(2_000_000_000n * 10n ** 10n).toString(16)}`);
    expect(tx.r).to.equal(RESULT_DETAILS.r);
    const receipt = valid('eth_getTransactionReceipt', await result(relay, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash])) as any;
    expect(receipt.status).to.equal('0x1');
    expect(receipt.logs).to.have.length(2);
    expect(receipt.logs[0].topics).to.deep.equal(RESULT_DETAILS.logs[0].topics);
    expect(receipt.logs[0].blockHash).to.equal(receipt.blockHash);
    const again = mirror.paths.length;
    await result(relay, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash]);
    expect(mirror.paths.length).to.equal(again);
  });

  it('from and to are EVM addresses: a long-zero entity is looked up once, and keeps its long-zero address only without one', async () => {
    // The examples' payer is contract 0.0.8001 (long-zero 0x…1f41), which has an EVM address; their recipient
    // 0.0.5001 is no entity the mirror node knows, so its long-zero address stays.
    expect(RESULT_DETAILS.from).to.equal('0x0000000000000000000000000000000000001f41');
    const tx = (await result(relay, 'eth_getTransactionByHash', [RESULT_DETAILS.hash])) as any;
    expect(tx.from).to.equal(CONTRACT.evm_address);
    expect(tx.to).to.equal(RESULT_DETAILS.to);
    const receipt = (await result(relay, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash])) as any;
    expect([receipt.from, receipt.to]).to.deep.equal([tx.from, tx.to]);
    const block = (await result(relay, 'eth_getBlockByNumber', [`0x${BUSY_BLOCK.toString(16)}`, true])) as any;
    expect(block.transactions.find((t: any) => t.from === CONTRACT.evm_address)).to.not.equal(undefined);
    // one lookup per entity kind, however often the entity appears
    const lookups = mirror.paths.filter((p) => /^\/api\/v1\/(accounts|contracts)\/0x0{24}/.test(p));
    expect(lookups).to.deep.equal([...new Set(lookups)]);
  });

  it('eth_getBlockReceipts answers every receipt of a block with the running cumulativeGasUsed; null for an unknown block', async () => {
    const receipts = valid('eth_getBlockReceipts', await result(relay, 'eth_getBlockReceipts', [`0x${BUSY_BLOCK.toString(16)}`])) as any[];
    expect(receipts.map((r) => r.transactionHash)).to.deep.equal(RESULTS.map((r) => r.hash));
    let sum = 0n;
    for (const r of receipts) expect(BigInt(r.cumulativeGasUsed)).to.equal((sum += BigInt(r.gasUsed)));
    // The mirror node's error message, hex-encoded as the official relay sends its text.
    expect(receipts.map((r) => r.revertReason)).to.include(`0x${Buffer.from('Not enough gas').toString('hex')}`);
    const block = (await result(relay, 'eth_getBlockByNumber', [`0x${BUSY_BLOCK.toString(16)}`, false])) as any;
    expect(block.receiptsRoot).to.match(/^0x[0-9a-f]{64}$/).and.not.equal(block.hash);
    expect(await result(relay, 'eth_getBlockReceipts', ['0x99'])).to.equal(null);
  });

  it('a block’s base fee and its receipts’ effectiveGasPrice are the fee schedule in force at the block’s end, read once', async () => {
    const ledger17 = BLOCKS.find((b) => b.number === 17);
    const receipt = (await result(relay, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash])) as any;
    const block = (await result(relay, 'eth_getBlockByNumber', ['0x11', false])) as any;
    expect(receipt.effectiveGasPrice).to.equal(block.baseFeePerGas);
    const atBlock = `/api/v1/network/fees?timestamp=lte:${ledger17.timestamp.to}`;
    expect(mirror.paths.filter((p) => p === atBlock)).to.have.length(1);
  });

  it('the token service precompile has the INVALID opcode as code; eth_hashrate is zero', async () => {
    expect(await result(relay, 'eth_getCode', ['0x0000000000000000000000000000000000000167', 'latest'])).to.equal('0xfe');
    expect(await result(relay, 'eth_hashrate')).to.equal('0x0');
  });

  it('a current mirror node is asked for weibar (hbar=false) and its amounts past 2^53 are kept exact', async () => {
    const current = await startFixtureMirror({ current: true });
    const weibar = testRelay(296, { mirrorUrl: current.url });
    try {
      const tx = (await result(weibar, 'eth_getTransactionByHash', [RESULT_DETAILS.hash])) as any;
      // 2,000,000,000 tinybar = 2 * 10^19 weibar, past 2^53: sent as a bare JSON number by the mirror node
      expect(BigInt(tx.value)).to.equal(2_000_000_000n * 10n ** 10n);
      expect(tx.gasPrice).to.equal(`0x${(BigInt(RESULT_DETAILS.gas_price) * 10n ** 10n).toString(16)}`);
      const results = current.paths.filter((p) => p.startsWith('/api/v1/contracts/results') && !p.startsWith('/api/v1/contracts/results/logs'));
      expect(results.length).to.be.greaterThan(0);
      expect(results.filter((p) => !p.includes('hbar=false'))).to.deep.equal([]);
    } finally {
      await weibar.close();
      await current.close();
    }
  });

  describe('differences from the official relay (docs/relay-differences.md)', () => {
    it('a receipt’s logs carry their block’s timestamp, not the transaction’s own second', async () => {
      const receipt = (await result(relay, 'eth_getTransactionReceipt', [RESULT_DETAILS.hash])) as any;
      const block = (await result(relay, 'eth_getBlockByNumber', [receipt.blockNumber, false])) as any;
      expect(Number(RESULT_DETAILS.timestamp.split('.')[0])).to.not.equal(Number(block.timestamp));
      expect(receipt.logs.map((l: any) => l.blockTimestamp)).to.deep.equal(receipt.logs.map(() => block.timestamp));
    });

    it('eth_getLogs takes a null address or null topics as any (OpenRPC Filter), where the official relay refuses them', async () => {
      const range = { fromBlock: '0x10', toBlock: '0x13' };
      for (const filter of [{ address: null, topics: null }, { address: null, topics: [[], [`0x${'ab'.repeat(32)}`]] }, { address: [CONTRACT.evm_address], topics: null }]) {
        expect(await call(relay, 'eth_getLogs', [{ ...filter, ...range }]), JSON.stringify(filter)).to.have.property('result').that.is.an('array');
      }
    });
  });

  it('eth_getTransactionByBlockNumberAndIndex finds a transaction by its index in the block', async () => {
    const tx = valid('eth_getTransactionByBlockNumberAndIndex', await result(relay, 'eth_getTransactionByBlockNumberAndIndex', ['0x13', '0x1'])) as any;
    expect(tx.hash).to.equal(RESULTS[0].hash);
    expect(await result(relay, 'eth_getTransactionByBlockNumberAndIndex', ['0x13', '0x7'])).to.equal(null);
  });

  it('uncles as the official relay answers them: 0x0 uncles for any block, known or not, none at any index, params optional', async () => {
    const unknown = `0x${'ab'.repeat(32)}`;
    expect(await result(relay, 'eth_getUncleCountByBlockNumber', ['0x12'])).to.equal('0x0');
    expect(await result(relay, 'eth_getUncleCountByBlockNumber', ['0x99'])).to.equal('0x0');
    expect(await result(relay, 'eth_getUncleCountByBlockHash', [unknown])).to.equal('0x0');
    expect(await result(relay, 'eth_getUncleByBlockNumberAndIndex', ['0x12', '0x0'])).to.equal(null);
    for (const method of ['eth_getUncleCountByBlockNumber', 'eth_getUncleCountByBlockHash']) expect(await result(relay, method, [])).to.equal('0x0');
    for (const method of ['eth_getUncleByBlockNumberAndIndex', 'eth_getUncleByBlockHashAndIndex']) expect(await result(relay, method, [])).to.equal(null);
    expect(await call(relay, 'eth_getUncleCountByBlockHash', ['0x12'])).to.have.nested.property('error.code', -32602);
    expect(mirror.paths).to.deep.equal([]);
  });

  it('names a refused param by its index, in the official relay\'s words (its predefined INVALID_PARAMETER / MISSING_REQUIRED_PARAMETER)', async () => {
    const refusal = async (method: string, params: unknown[]) => (await call(relay, method, params)) as any;
    for (const [method, params, index] of [
      ['eth_getUncleByBlockNumberAndIndex', [''], 0],
      ['eth_getUncleByBlockNumberAndIndex', ['0x12', 'nope'], 1],
      ['eth_getUncleByBlockHashAndIndex', [`0x${'ab'.repeat(32)}`, '0x01'], 1],
      ['eth_getBalance', ['0x1234'], 0],
      ['eth_getBalance', [`0x${'12'.repeat(20)}`, 'newest'], 1],
      ['eth_getBlockByHash', [`0x${'ab'.repeat(32)}`, 'yes'], 1],
      ['eth_feeHistory', ['0x1', 'latest', [101]], 2],
      ['eth_getLogs', [{ blockHash: `0x${'ab'.repeat(32)}`, fromBlock: '0x1' }], 0],
    ] as const) {
      const { error } = await refusal(method, [...params]);
      expect(error.code, method).to.equal(-32602);
      expect(error.message, `${method} ${JSON.stringify(params)}`).to.match(new RegExp(`^Invalid parameter ${index}: value must `));
    }
    expect((await refusal('eth_getBalance', [])).error).to.deep.equal({ code: -32602, message: 'Missing value for required parameter 0' });
    expect((await refusal('eth_getBlockByNumber', ['0x12'])).error).to.deep.equal({ code: -32602, message: 'Missing value for required parameter 1' });
  });

  it('a method the official relay refuses answers "Unsupported JSON-RPC method"; an unknown name is not found', async () => {
    for (const method of ['eth_coinbase', 'eth_getWork', 'eth_submitHashrate', 'eth_sendTransaction', 'eth_sign', 'eth_signTransaction', 'eth_protocolVersion', 'eth_getProof', 'eth_createAccessList', 'eth_simulateV1', 'eth_blobBaseFee', 'engine_getPayloadV1']) {
      expect((await call(relay, method, [])) as any, method).to.have.deep.property('error', { code: -32601, message: 'Unsupported JSON-RPC method' });
    }
    expect((await call(relay, 'eth_noSuchMethod', [])) as any).to.have.deep.property('error', { code: -32601, message: 'Method eth_noSuchMethod not found' });
  });

  it('eth_submitWork answers false, as the official relay does: no proof of work is accepted', async () => {
    expect(await result(relay, 'eth_submitWork', ['0x0000000000000001', `0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`])).to.equal(false);
  });

  it('constant answers match the OpenRPC schemas', async () => {
    expect(valid('eth_syncing', await result(relay, 'eth_syncing'))).to.equal(false);
    expect(valid('eth_accounts', await result(relay, 'eth_accounts'))).to.deep.equal([]);
    expect(valid('eth_maxPriorityFeePerGas', await result(relay, 'eth_maxPriorityFeePerGas'))).to.equal('0x0');
    expect(valid('eth_gasPrice', await result(relay, 'eth_gasPrice'))).to.equal(`0x${(56n * 10n ** 10n).toString(16)}`);
    expect(valid('eth_blockNumber', await result(relay, 'eth_blockNumber'))).to.equal('0x13');
    expect(await result(relay, 'eth_mining')).to.equal(false);
    expect(await result(relay, 'net_listening')).to.equal(true);
    expect(await result(relay, 'web3_clientVersion')).to.match(/^multichain-gateway\/\d+\.\d+\.\d+/);
  });

  it('eth_feeHistory reports the network gas price for each block and zero rewards', async () => {
    const history = await result(relay, 'eth_feeHistory', ['0x2', 'latest', [50]]);
    // the fixture serves no block ranges, so the history is empty but well-formed
    valid('eth_feeHistory', history);
    expect(history.baseFeePerGas[0]).to.equal(`0x${(56n * 10n ** 10n).toString(16)}`);
  });

  it('answers a batch with one outcome per call, in order', async () => {
    const outcomes = JSON.parse(JSON.stringify(await relay.handle(
      [
        { id: '1', method: 'eth_getBlockByNumber', params: ['0x10', false] },
        { id: '2', method: 'eth_foo', params: [] },
        { id: '3', method: 'eth_chainId', params: [] },
        { id: '4', method: 'eth_getBlockByHash', params: ['0x12'] },
      ],
      { requestId: 'batch' } as never,
    )));
    expect(outcomes).to.have.length(4);
    expect(outcomes[0]).to.have.nested.property('result.number', '0x10');
    expect(outcomes[1]).to.have.nested.property('error.code', -32601);
    expect(outcomes[2]).to.deep.equal({ result: '0x128' });
    expect(outcomes[3]).to.have.nested.property('error.code', -32602);
  });

  it('unknown methods get -32601 naming the method; bad params get -32602 with a clear message', async () => {
    const unsupported = await call(relay, 'eth_getStateProof', ['0x0000000000000000000000000000000000000001', [], 'latest']);
    expect(unsupported).to.have.nested.property('error.code', -32601);
    // The official relay's words (its spec.MethodNotFound), which its acceptance suites match.
    expect((unsupported as any).error.message).to.equal('Method eth_getStateProof not found');
    for (const [method, params, text] of [
      ['eth_getBlockByNumber', ['0xzz', false], 'hex block number'],
      ['eth_getBlockByNumber', ['newest', false], 'latest, earliest, pending, safe, finalized'],
      ['eth_getBlockByNumber', [], 'required parameter 0'],
      ['eth_getBlockByNumber', ['latest'], 'required parameter 1'],
      ['eth_getBlockByNumber', ['0x09', false], 'without leading zeros'],
      ['eth_getBlockByNumber', ['latest', 'yes'], 'true or false'],
      ['eth_getTransactionByHash', ['0x1234'], '32-byte'],
      ['eth_getBalance', ['0x12', 'latest'], '20-byte'],
      ['eth_chainId', [1], 'at most 0'],
      ['eth_blockNumber', { a: 1 }, 'must be an array'],
    ] as const) {
      const outcome = await call(relay, method, params);
      expect(outcome, `${method} ${JSON.stringify(params)}`).to.have.nested.property('error.code', -32602);
      expect((outcome as any).error.message).to.include(text);
    }
  });

  it('a param past those a method takes is -32602, a trailing null too, as in the official relay', async () => {
    // The official acceptance suite's cases (rpc_batch3, "trailing null").
    const hash = `0x${'4c'.repeat(32)}`;
    const address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
    for (const [method, params] of [
      ['eth_getBalance', [address, '0x12', null]],
      ['eth_getCode', [address, '0x12', null]],
      ['eth_getBlockByHash', [hash, false, null]],
      ['eth_getBlockByNumber', ['0x12', false, null]],
      ['eth_getBlockTransactionCountByHash', [hash, null]],
      ['eth_getBlockTransactionCountByNumber', ['0x12', null]],
      ['eth_getTransactionByBlockHashAndIndex', [hash, '0x1', null]],
      ['eth_getTransactionByBlockNumberAndIndex', ['0x12', '0x1', null]],
      ['eth_getTransactionCount', [address, '0x12', null]],
      ['eth_sendRawTransaction', ['0x00', null]],
      ['eth_call', [{ to: address, data: '0x' }, 'latest', {}, null]],
      ['eth_getTransactionByHash', [hash, null]],
      ['eth_getTransactionReceipt', [hash, null]],
      ['eth_getLogs', [{ address }, null]],
      ['eth_getBlockReceipts', ['0x12', null]],
    ] as const) {
      const outcome = await call(relay, method, params);
      expect(outcome, `${method} ${JSON.stringify(params)}`).to.have.nested.property('error.code', -32602);
      expect((outcome as any).error.message, method).to.match(/^Invalid params: expected at most \d params?, got \d$/);
    }
    // A method that takes none still accepts [null], and an omitted optional argument may be null.
    expect(await result(relay, 'eth_chainId', [null])).to.equal('0x128');
    expect(await result(relay, 'eth_getBalance', [address, null])).to.match(/^0x/);
  });

  it('`latest` is reused for relay.latestCacheMs, then read again', async () => {
    const cached = testRelay(296, { mirrorUrl: mirror.url }, { latestCacheMs: 60_000 });
    try {
      await result(cached, 'eth_blockNumber');
      await result(cached, 'eth_getBlockByNumber', ['latest', false]);
      await result(cached, 'eth_blockNumber');
      expect(mirror.paths.filter((p) => p === '/api/v1/blocks?limit=1&order=desc')).to.have.length(1);
    } finally {
      await cached.close();
    }
    await result(relay, 'eth_blockNumber');
    await result(relay, 'eth_blockNumber');
    expect(mirror.paths.filter((p) => p === '/api/v1/blocks?limit=1&order=desc')).to.have.length(3);
  });

  it('contracts/call goes to the separate call URL when the operator splits them', async () => {
    const calls = await startFixtureMirror();
    const split = testRelay(296, { mirrorUrl: mirror.url, mirrorCallUrl: calls.url });
    try {
      const outcome = await call(split, 'eth_call', [{ to: `0x${'11'.repeat(20)}`, data: '0x' }, 'latest']);
      // the fixture has no contracts/call route: the 404 on the call URL means "no contract", which is empty data
      expect(outcome).to.deep.equal({ result: '0x' });
      expect(calls.paths).to.deep.equal(['/api/v1/contracts/call']);
      expect(mirror.paths).to.deep.equal([]);
    } finally {
      await split.close();
      await calls.close();
    }
  });

  it('writes without an operator say clearly that they are not configured', async () => {
    const outcome = await call(relay, 'eth_sendRawTransaction', ['0x02f8']);
    expect(outcome).to.have.nested.property('error.message').that.includes('Writes are not configured');
  });
});
