/**
 * The ledger's eth_getLogs span through a real gateway, in front of a mirror-node stand-in built from the real node's
 * block and log examples: by default the official relay's limit (toBlock - fromBlock up to 1,000, its -32000
 * "Exceeded maximum block range: 1000" past it), a plan's own wider span, and each mirror page charged to the key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { defaultPlans } from '../../src/config/catalogue.js';
import { rpc, startTestGateway, withLedgerNetwork, type TestGateway } from '../support/gateway.js';
import { BLOCKS, example } from './fixtureMirror.js';

const HEAD = 6_000;
const PAGES = 5;
const BASE_SECONDS = 1_700_000_000;
const LOG = example('contracts_results_logs__pagination-index-timestamp').logs[0];
const hex = (n: number) => `0x${n.toString(16)}`;

function block(n: number) {
  const hash = `0x${n.toString(16).padStart(96, '0')}`;
  return { ...BLOCKS[0], number: n, hash, previous_hash: `0x${Math.max(0, n - 1).toString(16).padStart(96, '0')}`, timestamp: { from: `${BASE_SECONDS + 2 * n}.000000000`, to: `${BASE_SECONDS + 2 * n + 1}.999999999` } };
}

describe('ledger eth_getLogs span', function () {
  this.timeout(60_000);
  let server: Server;
  let t: TestGateway;
  let logPages: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://mirror');
      const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.pathname === '/api/v1/blocks') return send({ blocks: [block(url.searchParams.get('order') === 'asc' ? 0 : HEAD)], links: { next: null } });
      const n = /^\/api\/v1\/blocks\/(\d+)$/.exec(url.pathname)?.[1];
      if (n) return send(Number(n) <= HEAD ? block(Number(n)) : undefined);
      if (url.pathname === '/api/v1/contracts/results/logs') {
        logPages.push(url.search);
        // One log per page, in the blocks after the range's first, as the mirror node pages them: links.next until the last.
        const page = Number(url.searchParams.get('page') ?? 0);
        const first = Number(url.searchParams.getAll('timestamp')[0].split(':')[1].split('.')[0]) - BASE_SECONDS;
        const at = first / 2 + page + 1;
        const log = { ...LOG, index: 0, block_number: at, block_hash: block(at).hash, timestamp: block(at).timestamp.from };
        const next = page + 1 < PAGES ? `${url.pathname}${url.search.replace(/&page=\d+/, '')}&page=${page + 1}` : null;
        return send({ logs: [log], links: { next } });
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ _status: { messages: [{ message: 'Not found' }] } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const mirrorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const plans = {
      ...defaultPlans(),
      // Exactly the mirror pages one query takes.
      wide: { requestsPerSecond: 1_000, monthlyQuota: PAGES, apis: ['rpc' as const], maxLogBlocks: 5_000 },
    };
    t = await startTestGateway({
      chains: withLedgerNetwork('testnet', { chainId: 296, ledger: { mirrorUrl, consensus: 'testnet' } }),
      plans,
      limits: { relayPlans: ['enterprise', 'wide'] },
    });
  });
  after(async () => {
    await t?.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => (logPages = []));

  const getLogs = async (key: string, from: number, to: number) =>
    rpc(`${t.gw.url}/hedera-testnet/v1/${key}/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: hex(from), toBlock: hex(to) }] });

  it('by default answers toBlock - fromBlock of 1,000, and refuses 1,001 with the official relay\'s error, asking the mirror for no logs', async () => {
    const within = await getLogs(t.key, 1_000, 2_000);
    expect(within.json.result).to.have.length(PAGES);
    logPages = [];
    const past = await getLogs(t.key, 1_000, 2_001);
    expect(past.json.error).to.deep.equal({ code: -32000, message: 'Exceeded maximum block range: 1000' });
    expect(logPages).to.deep.equal([]);
  });

  it('a plan with a wider span gets it, each mirror page charged: a quota of exactly the pages is then used up', async () => {
    const { key } = await t.newKey('wide');
    const wide = await getLogs(key, 100, 5_100);
    expect(wide.json.error).to.equal(undefined);
    expect(wide.json.result.map((l: { blockNumber: string }) => Number(l.blockNumber))).to.deep.equal([101, 102, 103, 104, 105]);
    expect(logPages).to.have.length(PAGES);
    const after = await rpc(`${t.gw.url}/hedera-testnet/v1/${key}/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    expect(after.status).to.equal(429);
    const past = await getLogs((await t.newKey('wide')).key, 100, 5_101);
    expect(past.json.error).to.deep.equal({ code: -32000, message: 'Exceeded maximum block range: 5000' });
  });
});
