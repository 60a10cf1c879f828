/**
 * eth_getLogs over a span a plan allows and an upstream does not, through a real gateway in front of loopback
 * upstreams that refuse wide ranges with providers' own words: the span is cut, fetched in parts, joined in block order
 * and charged one request per upstream request; a plan without the span is refused; the answer's size is bounded.
 */
import { expect } from 'chai';
import { defaultChains, defaultPlans } from '../../src/config/catalogue.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { EvmStandIn, type RefusalStyle } from '../support/evmStandIn.js';

const hex = (n: number) => `0x${n.toString(16)}`;
const SPAN = 100_000;
const CAP = 1_000;
const MAX_BYTES = 64 * 1024;

describe('eth_getLogs split across upstream requests', function () {
  this.timeout(120_000);
  let configured: EvmStandIn;
  let discovering: EvmStandIn;
  let t: TestGateway;

  const url = (network: string, key: string) => `${t.gw.url}/${network}/v1/${key}/rpc`;
  const call = async (target: string, method: string, params: unknown[] = []) => rpc(target, { jsonrpc: '2.0', id: 1, method, params });
  const spanOf = (c: { params: unknown[] }) => {
    const f = c.params[0] as { fromBlock: string; toBlock: string };
    return Number(f.toBlock) - Number(f.fromBlock) + 1;
  };

  before(async () => {
    configured = await EvmStandIn.start({ chainId: 11155111, head: 120_000, capBlocks: CAP, refusal: 'namedCap', logEvery: 1_000 });
    discovering = await EvmStandIn.start({ chainId: 560048, head: 120_000, capBlocks: CAP, logEvery: 50 });
    const chains = defaultChains();
    chains.ethereum.networks.sepolia = { chainId: 11155111, upstreams: [configured.url], logBlocksPerRequest: CAP };
    chains.ethereum.networks.hoodi = { chainId: 560048, upstreams: [discovering.url] };
    const plans = {
      ...defaultPlans(),
      // Exactly the requests one 100,000-block query takes on a 1,000-block upstream.
      wide: { requestsPerSecond: 2_000, monthlyQuota: SPAN / CAP, apis: ['rpc' as const], maxLogBlocks: SPAN },
      wideMany: { requestsPerSecond: 2_000, monthlyQuota: 1_000_000, apis: ['rpc' as const], maxLogBlocks: SPAN },
      narrow: { requestsPerSecond: 2_000, monthlyQuota: 1_000_000, apis: ['rpc' as const] },
    };
    t = await startTestGateway({ chains, plans, rpcPolicy: { maxLogBytes: MAX_BYTES } });
  });
  after(async () => {
    await t?.close();
    await configured?.close();
    await discovering?.close();
  });

  it('a 100,000-block query on a plan that allows it: 100 upstream requests of 1,000 blocks, joined in order, charged 100', async () => {
    const { key } = await t.newKey('wide');
    let answer: any;
    const sent = await configured.calls('eth_getLogs', async () => (answer = (await call(url('ethereum-sepolia', key), 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(SPAN - 1) }])).json));
    expect(answer.error).to.equal(undefined);
    expect(answer.result).to.deep.equal(configured.logs(0, SPAN - 1));
    expect(answer.result).to.have.length(SPAN / 1_000);
    expect(sent).to.have.length(SPAN / CAP);
    expect(sent.every((c) => spanOf(c) === CAP)).to.equal(true);
    // The quota held exactly the 100 requests the query made: the next one is refused.
    const after = await call(url('ethereum-sepolia', key), 'eth_blockNumber');
    expect(after.status).to.equal(429);
    expect(after.json.error.message).to.match(/monthly quota/);
  });

  it('the same query on a plan that does not allow it is refused, and nothing reaches the upstream', async () => {
    const { key } = await t.newKey('narrow');
    let answer: any;
    const sent = await configured.calls('eth_getLogs', async () => (answer = (await call(url('ethereum-sepolia', key), 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(SPAN - 1) }])).json));
    expect(answer.error).to.deep.equal({ code: -32000, message: 'Range too large: eth_getLogs spans at most 10000 blocks' });
    expect(sent).to.deep.equal([]);
  });

  it('a quota that runs out midway answers the call -32005 and sends no more', async () => {
    const { key } = await t.newKey('wide');
    await call(url('ethereum-sepolia', key), 'eth_blockNumber');
    let answer: any;
    const sent = await configured.calls('eth_getLogs', async () => (answer = (await call(url('ethereum-sepolia', key), 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(SPAN - 1) }])).json));
    expect(answer.error.code).to.equal(-32005);
    expect(sent).to.have.length(SPAN / CAP - 1);
  });

  for (const style of ['hintedRange', 'infura', 'tooWide'] as RefusalStyle[]) {
    it(`an upstream that refuses with ${style}'s words: cut as the refusal says and joined in order`, async () => {
      const { key } = await t.newKey('wideMany');
      discovering.opts.refusal = style;
      let answer: any;
      const sent = await discovering.calls('eth_getLogs', async () => (answer = (await call(url('ethereum-hoodi', key), 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(4_999) }])).json));
      expect(answer.result).to.deep.equal(discovering.logs(0, 4_999));
      const served = sent.filter((c) => spanOf(c) <= CAP);
      expect(served.map((c) => Number((c.params[0] as { fromBlock: string }).fromBlock)).sort((a, b) => a - b)[0]).to.equal(0);
      expect(served.reduce((n, c) => n + spanOf(c), 0)).to.equal(5_000);
    });
  }

  it('a cap the upstream names is remembered: the next wide query goes out cut to it at once', async () => {
    const { key } = await t.newKey('wideMany');
    discovering.opts.refusal = 'namedCap';
    const first = await discovering.calls('eth_getLogs', () => call(url('ethereum-hoodi', key), 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(4_999) }]));
    expect(first.map(spanOf)).to.deep.equal([5_000, CAP, CAP, CAP, CAP, CAP]);
    let answer: any;
    const second = await discovering.calls('eth_getLogs', async () => (answer = (await call(url('ethereum-hoodi', key), 'eth_getLogs', [{ fromBlock: hex(10_000), toBlock: hex(14_999) }])).json));
    expect(second.map(spanOf)).to.deep.equal([CAP, CAP, CAP, CAP, CAP]);
    expect(answer.result).to.deep.equal(discovering.logs(10_000, 14_999));
  });

  it('an answer past rpcPolicy.maxLogBytes is refused -32005, without fetching the rest', async () => {
    const { key } = await t.newKey('wideMany');
    let answer: any;
    const sent = await discovering.calls('eth_getLogs', async () => (answer = (await call(url('ethereum-hoodi', key), 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(99_999) }])).json));
    expect(answer.error.code).to.equal(-32005);
    expect(answer.error.message).to.match(/^Limit exceeded: this eth_getLogs answer is larger than the gateway returns/);
    expect(sent.length).to.be.below(100);
  });

  it("a filter's logs are cut for the upstream the same way", async () => {
    const { key } = await t.newKey('wideMany');
    discovering.opts.refusal = 'tooWide';
    const id = (await call(url('ethereum-hoodi', key), 'eth_newFilter', [{ fromBlock: hex(20_000), toBlock: hex(24_999) }])).json.result;
    const answer = (await call(url('ethereum-hoodi', key), 'eth_getFilterLogs', [id])).json;
    expect(answer.result).to.deep.equal(discovering.logs(20_000, 24_999));
  });

  it('a query within one request goes out as the client sent it, tags and all', async () => {
    const { key } = await t.newKey('wideMany');
    const filter = { fromBlock: hex(configured.head - 10), toBlock: 'latest' };
    const sent = await configured.calls('eth_getLogs', () => call(url('ethereum-sepolia', key), 'eth_getLogs', [filter]));
    expect(sent.map((c) => c.params[0])).to.deep.equal([filter]);
  });
});
