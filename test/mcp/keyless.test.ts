/**
 * /mcp without a key cannot be used to amplify: each message of a batch is charged to the client address's keyless
 * budget, a batch larger than that budget's burst is refused outright, and refusals are JSON-RPC errors with HTTP 429
 * and Retry-After. A key's own budget and other addresses are untouched. (Finding 3 of issue 24.)
 */
import { expect } from 'chai';
import { registry } from '../../src/metrics.js';
import { mcpPost, startHarness, type Harness } from './harness.js';

const listing = (calls: number) => Array.from({ length: calls }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
const from = (address: string) => ({ 'x-forwarded-for': address });

async function keylessRefusals(): Promise<number> {
  const metric = await registry.getSingleMetric('gateway_limit_refusals_total')!.get();
  return metric.values.find((v) => v.labels.reason === 'keyless')?.value ?? 0;
}

describe('MCP without a key: a per-address budget, one per message', () => {
  let h: Harness;
  let url: string;
  before(async () => {
    // Ten messages per address in all: the clock stands still, so the budget never refills during the test.
    h = await startHarness({ overrides: { limits: { keylessPerSecond: 10 }, server: { clientIpHeader: 'x-forwarded-for' } } });
    url = `${h.url}/mcp`;
  });
  after(() => h?.close());

  it('refuses a keyless batch of 100 tools/list calls outright, with a JSON-RPC error, 429 and Retry-After', async () => {
    const before = await keylessRefusals();
    const res = await mcpPost(url, listing(100), from('192.0.2.1'));
    expect(res.status).to.equal(429);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    expect(res.json.error.code).to.equal(-32005);
    expect(res.json.error.message).to.include('without an API key').and.include('100 calls in one request exceed the burst allowed without an API key of 10');
    expect(res.text.length).to.be.below(1_000);
    expect(await keylessRefusals()).to.equal(before + 1);
  });

  it('charges each message of a batch, refuses the address once its budget is spent, and serves keys and other addresses', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await mcpPost(url, listing(4), from('192.0.2.2'))).status);
    // 4 + 4 fit in the burst of 10; the third batch of 4 does not, and still costs the one request charged before its
    // body was read.
    expect(statuses).to.deep.equal([200, 200, 429]);
    const single = await mcpPost(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, from('192.0.2.2'));
    expect(single.status, 'one of the ten is left').to.equal(200);
    const spent = await mcpPost(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, from('192.0.2.2'));
    expect(spent.status).to.equal(429);
    expect(spent.json.error.message).to.include('Retry after');
    expect(Number(spent.headers.get('retry-after'))).to.be.greaterThan(0);

    expect((await mcpPost(url, listing(4), from('192.0.2.3'))).status, 'another address').to.equal(200);
    const keyed = await mcpPost(url, listing(4), { ...from('192.0.2.2'), 'x-api-key': h.key });
    expect(keyed.status, 'the same address with a key').to.equal(200);
    expect(h.charged).to.equal(4);
  });
});
