/**
 * Final answers kept as their JSON text: a repeat is served byte for byte without asking the mirror node again, a head
 * tag shares the text of its block's number, and nothing that can still change is kept. The mirror stand-in serves
 * the real node's block examples and, in each block, one log shaped like the real node's example, under a head the
 * test moves.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import type { CallContext } from '../../src/rpc/answer.js';
import { serializeResponse } from '../../src/rpc/jsonrpc.js';
import { BLOCKS, FEES, example } from './fixtureMirror.js';
import { testRelay } from './helpers.js';

const HEAD_PATH = '/api/v1/blocks?limit=1&order=desc';
const LOG = example('contracts_results_logs__pagination-index-timestamp').logs[0];
const ADDRESS = LOG.address as string;
const hex = (n: number) => `0x${n.toString(16)}`;

/** The log of block `b`, with a transaction hash of its own (a token transfer: a log without a contract result). */
const logOf = (b: any) => ({ ...LOG, timestamp: b.timestamp.from, block_number: b.number, block_hash: b.hash, transaction_hash: `0x${hex(b.number).slice(2).padStart(64, '0')}`, transaction_index: 0 });

describe('final answers kept as text', () => {
  let server: Server;
  let relay: LedgerRelay;
  let head = 19;
  const paths: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      paths.push(req.url ?? '');
      const [pathname, query = ''] = (req.url ?? '').split('?');
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const known = BLOCKS.filter((b) => b.number <= head);
      if (req.url === HEAD_PATH) return send(200, { blocks: [known.find((b) => b.number === head)], links: { next: null } });
      const n = /^\/api\/v1\/blocks\/(\d+)$/.exec(pathname)?.[1];
      const block = known.find((b) => String(b.number) === n);
      if (block) return send(200, block);
      if (pathname === '/api/v1/network/fees') return send(200, FEES);
      if (pathname === '/api/v1/contracts/results') return send(200, { results: [], links: { next: null } });
      if (pathname.endsWith('/results/logs')) {
        const bound = (op: string) => Number(new URLSearchParams(query).getAll('timestamp').find((t) => t.startsWith(op))!.slice(op.length));
        const inRange = known.filter((b) => Number(b.timestamp.from) >= bound('gte:') && Number(b.timestamp.from) <= bound('lte:'));
        return send(200, { logs: inRange.sort((a, b) => a.number - b.number).map(logOf), links: { next: null } });
      }
      send(404, { _status: { messages: [{ message: 'Not found' }] } });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    head = 19;
    paths.length = 0;
    // The head is read again on every call (latestCacheMs 0), so a moved head shows at once.
    relay = testRelay(296, { mirrorUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  afterEach(() => relay.close());

  /** The response body a client receives for one call. */
  const body = async (method: string, params: unknown[]) => {
    const [outcome] = await relay.handle([{ id: '1', method, params }], { requestId: 'test' } as CallContext);
    return serializeResponse('1', outcome);
  };
  /** Cache hits while `run` ran: a kept answer is one; formatting it again would take one per record it reads. */
  const hits = async (run: () => Promise<unknown>) => {
    const from = relay.stats().cache.hits;
    await run();
    return relay.stats().cache.hits - from;
  };
  /** What the mirror node was asked while `run` ran. */
  const asked = async (run: () => Promise<unknown>) => {
    const from = paths.length;
    await run();
    return paths.slice(from);
  };

  it('eth_getBlockReceipts of a block is kept: a repeat is the same text, one cache look-up, and asks the mirror node nothing', async () => {
    const first = await body('eth_getBlockReceipts', [hex(18)]);
    expect(JSON.parse(first).result).to.have.length(1);
    let again = '';
    expect(await asked(async () => (again = await body('eth_getBlockReceipts', [hex(18)])))).to.deep.equal([]);
    expect(again).to.equal(first);
    expect(await hits(() => body('eth_getBlockReceipts', [hex(18)]))).to.equal(1);
  });

  it('`latest` is answered from the text of its block’s number, and follows the head when it moves', async () => {
    head = 18;
    const byNumber = await body('eth_getBlockByNumber', [hex(18), true]);
    let latest = '';
    expect(await asked(async () => (latest = await body('eth_getBlockByNumber', ['latest', true])))).to.deep.equal([HEAD_PATH]);
    expect(latest).to.equal(byNumber);
    expect(await hits(() => body('eth_getBlockByNumber', ['latest', true]))).to.equal(1);
    head = 19;
    expect(JSON.parse(await body('eth_getBlockByNumber', ['latest', true])).result.number).to.equal(hex(19));
    expect(JSON.parse(await body('eth_getBlockReceipts', ['finalized'])).result[0].blockNumber).to.equal(hex(19));
  });

  it('eth_getLogs up to the head is kept; a range past the head is not, so a block that arrives later is in the next answer', async () => {
    head = 18;
    const filter = { fromBlock: hex(18), toBlock: hex(19), address: ADDRESS };
    // A null blockHash is no block hash, so the same range decides.
    const withNullHash = { ...filter, blockHash: null };
    for (const f of [filter, withNullHash]) expect(JSON.parse(await body('eth_getLogs', [f])).result.map((l: any) => l.blockNumber)).to.deep.equal([hex(18)]);
    // A range that starts past its end is not kept: starting past the head it is empty, once the head reaches it an error.
    const backwards = { fromBlock: hex(19), toBlock: hex(18), address: ADDRESS };
    expect(JSON.parse(await body('eth_getLogs', [backwards])).result).to.deep.equal([]);
    head = 19;
    expect(JSON.parse(await body('eth_getLogs', [backwards])).error.code).to.equal(-32602);
    const grown = await body('eth_getLogs', [filter]);
    expect(JSON.parse(grown).result.map((l: any) => l.blockNumber)).to.deep.equal([hex(18), hex(19)]);
    expect(JSON.parse(await body('eth_getLogs', [withNullHash])).result).to.deep.equal(JSON.parse(grown).result);
    // Now the range ends at the head: kept, and a repeat asks for nothing but the head.
    expect(await asked(() => body('eth_getLogs', [filter]))).to.deep.equal([HEAD_PATH]);
    expect(await body('eth_getLogs', [filter])).to.equal(grown);
    expect(await hits(() => body('eth_getLogs', [filter]))).to.equal(1);
    // A range left open (`latest`) is the range ending at the head's number, and shares its text.
    const open = await body('eth_getLogs', [{ fromBlock: hex(18), address: ADDRESS }]);
    expect(open).to.equal(grown);
  });
});
