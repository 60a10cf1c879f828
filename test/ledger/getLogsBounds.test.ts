/**
 * One eth_getLogs call is bounded in mirror-node requests: addresses and topic alternatives per call (-32602), pages
 * over all addresses (-32005), and at most a few address listings in flight at once. The mirror stand-in serves the
 * real node's block examples and log pages that never end, and records what it was asked and how much at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { LedgerRelay } from '../../src/relay/ledgerRelay.js';
import { LOG_FETCH_CONCURRENCY, MAX_LOG_ADDRESSES, MAX_LOG_PAGES, MAX_TOPIC_ALTERNATIVES } from '../../src/methods/eth_getLogs.js';
import { BLOCKS } from './fixtureMirror.js';
import { call, testRelay } from './helpers.js';

const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const topic = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

describe('eth_getLogs bounds', () => {
  let server: Server;
  let relay: LedgerRelay;
  let logRequests = 0;
  let inFlight = 0;
  let maxInFlight = 0;

  before(async () => {
    server = createServer((req, res) => {
      const [pathname, query = ''] = (req.url ?? '').split('?');
      const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (pathname === '/api/v1/blocks' && query.includes('order=desc')) return send({ blocks: [BLOCKS[0]], links: { next: null } });
      const n = /^\/api\/v1\/blocks\/(\d+)$/.exec(pathname)?.[1];
      if (n) return send(BLOCKS.find((b) => b.number === Number(n)) ?? BLOCKS[0]);
      if (pathname.endsWith('/results/logs')) {
        logRequests++;
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // Answer on a later turn, so listings running together overlap here.
        setImmediate(() => {
          inFlight--;
          send({ logs: [], links: { next: `${pathname}?${query}&page=${logRequests}` } });
        });
        return;
      }
      res.writeHead(404).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay = testRelay(296, { mirrorUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  after(async () => {
    await relay.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    logRequests = 0;
    maxInFlight = 0;
  });

  const range = { fromBlock: `0x${BLOCKS[0].number.toString(16)}`, toBlock: `0x${BLOCKS[0].number.toString(16)}` };

  it(`refuses more than ${MAX_LOG_ADDRESSES} addresses or ${MAX_TOPIC_ALTERNATIVES} topic alternatives with -32602, asking the mirror nothing`, async () => {
    const many = Array.from({ length: MAX_LOG_ADDRESSES + 1 }, (_, i) => address(i + 1));
    const addresses = await call(relay, 'eth_getLogs', [{ ...range, address: many }]);
    expect(addresses).to.have.nested.property('error.code', -32602);
    expect((addresses as any).error.message).to.include(`at most ${MAX_LOG_ADDRESSES} addresses`);
    const alternatives = Array.from({ length: MAX_TOPIC_ALTERNATIVES + 1 }, (_, i) => topic(i));
    const topics = await call(relay, 'eth_getLogs', [{ ...range, topics: [alternatives] }]);
    expect(topics).to.have.nested.property('error.code', -32602);
    expect(logRequests).to.equal(0);
  });

  it(`stops at ${MAX_LOG_PAGES} mirror pages with -32005, with at most ${LOG_FETCH_CONCURRENCY} listings in flight`, async () => {
    const outcome = await call(relay, 'eth_getLogs', [{ ...range, address: Array.from({ length: MAX_LOG_ADDRESSES }, (_, i) => address(i + 1)) }]);
    expect(outcome).to.have.nested.property('error.code', -32005);
    expect((outcome as any).error.message).to.match(/^Limit exceeded/);
    expect(logRequests).to.be.at.most(MAX_LOG_PAGES);
    expect(maxInFlight).to.be.at.most(LOG_FETCH_CONCURRENCY);
  });
});
