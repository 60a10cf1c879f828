/**
 * The EVM log range bound (rpcPolicy.maxLogBlocks) through a real gateway in front of a devnet, with a recording
 * upstream: a span written with tags or a missing bound, and a filter's span, are refused without reaching the
 * upstream; a narrow span, a blockHash query and a filter that keeps within the bound go on as before. Then the
 * guard on its own: what it does when the head cannot be read, and how often it reads it. The EVM GraphQL's `logs`
 * meets the same guard.
 */
import { expect } from 'chai';
import { defaultChains } from '../../src/config/catalogue.js';
import { GatewayError } from '../../src/errors.js';
import { LogRange } from '../../src/rpc/logRange.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { UpstreamProxy } from '../support/upstreamProxy.js';
import { postGraphql } from '../graphql/clients.js';

const MAX = 100;
const tooLarge = (method: string) => ({ code: -32000, message: `Range too large: ${method} spans at most ${MAX} blocks` });

describe('EVM log range bound on resolved bounds', function () {
  this.timeout(120_000);
  let sandbox: TestGateway;
  let t: TestGateway;
  let proxy: UpstreamProxy;
  let devnet: string;
  let url: string;

  const call = async (target: string, method: string, params: unknown[] = []) => (await rpc(target, { jsonrpc: '2.0', id: 1, method, params })).json;
  const head = async () => Number(BigInt((await call(devnet, 'eth_blockNumber')).result));
  /** The eth_getLogs ranges the upstream received while `run` ran. */
  const upstreamRanges = async (run: () => Promise<unknown>) => {
    const before = proxy.received.length;
    await run();
    return proxy.received.slice(before).filter((c) => c.method === 'eth_getLogs').map((c) => (c.params as Array<Record<string, unknown>>)[0]);
  };

  before(async () => {
    sandbox = await startTestGateway();
    [devnet] = (await sandbox.gw.local!.upstreams(sandbox.gw.router.network('ethereum-sepolia')!)).rpc;
    // Three times the bound, so the chain's whole history is too wide a span.
    await call(devnet, 'hardhat_mine', [`0x${(3 * MAX).toString(16)}`]);
    proxy = await UpstreamProxy.start(devnet);
    const chains = defaultChains();
    chains.ethereum.networks.sepolia.upstreams = [proxy.url];
    t = await startTestGateway({ chains, rpcPolicy: { maxLogBlocks: MAX } });
    url = `${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`;
  });
  after(async () => {
    await t?.close();
    await proxy?.close();
    await sandbox?.close();
  });

  for (const [name, filter] of [
    ['earliest to latest', { fromBlock: 'earliest', toBlock: 'latest' }],
    ['0x0 with no toBlock', { fromBlock: '0x0' }],
    ['earliest to safe', { fromBlock: 'earliest', toBlock: 'safe' }],
  ] as const) {
    it(`eth_getLogs ${name} is refused and never reaches the upstream`, async () => {
      let answer: any;
      const sent = await upstreamRanges(async () => (answer = await call(url, 'eth_getLogs', [filter])));
      expect(answer.error).to.deep.equal(tooLarge('eth_getLogs'));
      expect(sent).to.deep.equal([]);
    });
  }

  it('eth_getLogs within the bound goes upstream: tags, numbers and a blockHash query', async () => {
    const n = await head();
    const block = (await call(devnet, 'eth_getBlockByNumber', ['latest', false])).result;
    const narrow = [
      { fromBlock: `0x${(n - MAX + 1).toString(16)}` },
      { fromBlock: '0x0', toBlock: `0x${(MAX - 1).toString(16)}` },
      { blockHash: block.hash },
    ];
    for (const filter of narrow) {
      let answer: any;
      const sent = await upstreamRanges(async () => (answer = await call(url, 'eth_getLogs', [filter])));
      expect(answer.result, JSON.stringify(filter)).to.be.an('array');
      expect(sent).to.deep.equal([filter]);
    }
  });

  it('eth_newFilter 0x0-0xffffffff is refused; eth_getFilterLogs never sends that span upstream', async () => {
    let made: any;
    const sent = await upstreamRanges(async () => {
      made = await call(url, 'eth_newFilter', [{ fromBlock: '0x0', toBlock: '0xffffffff' }]);
      if (made.result) await call(url, 'eth_getFilterLogs', [made.result]);
    });
    expect(made.error).to.deep.equal(tooLarge('eth_newFilter'));
    expect(sent).to.deep.equal([]);
  });

  it('a filter to latest that the head outgrows is refused by eth_getFilterLogs; its polls carry on', async () => {
    const from = `0x${((await head()) - MAX + 11).toString(16)}`;
    const id = (await call(url, 'eth_newFilter', [{ fromBlock: from }])).result;
    expect((await call(url, 'eth_getFilterLogs', [id])).result).to.be.an('array');
    await call(devnet, 'hardhat_mine', ['0x14']);
    // The head cached to resolve tags is at most a second old.
    await new Promise((r) => setTimeout(r, 1_100));
    let answer: any;
    const sent = await upstreamRanges(async () => (answer = await call(url, 'eth_getFilterLogs', [id])));
    expect(answer.error).to.deep.equal(tooLarge('eth_getFilterLogs'));
    expect(sent).to.deep.equal([]);
    expect((await call(url, 'eth_getFilterChanges', [id])).result).to.be.an('array');
  });
});

describe('EVM GraphQL logs held to the eth_getLogs span', function () {
  this.timeout(120_000);
  let t: TestGateway;

  before(async () => {
    t = await startTestGateway({ rpcPolicy: { maxLogBlocks: MAX } });
    const [devnet] = (await t.gw.local!.upstreams(t.gw.router.network('ethereum')!)).rpc;
    // Three times the bound, so the chain's whole history is too wide a span.
    await rpc(devnet, { jsonrpc: '2.0', id: 1, method: 'hardhat_mine', params: [`0x${(3 * MAX).toString(16)}`] });
  });
  after(() => t?.close());

  const post = (query: string, variables?: Record<string, unknown>) =>
    postGraphql(`${t.gw.url}/ethereum/beta/graphql`, { query, variables }, { 'x-api-key': t.key });
  const refused = { errors: [{ message: `Range too large: logs spans at most ${MAX} blocks`, extensions: { code: 'BAD_USER_INPUT' } }] };

  for (const [name, query, variables] of [
    ['from block 0 to a missing toBlock (the head)', '{ logs(filter: { fromBlock: 0 }) { index } }'],
    ['a narrow alias beside one to a negative Long (a tag: the head)', '{ a: logs(filter: { fromBlock: 1, toBlock: 2 }) { index } b: logs(filter: { fromBlock: "0x0", toBlock: -2 }) { index } }'],
    ['numbers in a variable, through a fragment', 'query ($f: FilterCriteria!) { ...L } fragment L on Query { logs(filter: $f) { index } }', { f: { fromBlock: 0, toBlock: '1000' } }],
  ] as const) {
    it(`refuses ${name}`, async () => {
      expect(await post(query, variables)).to.deep.equal({ status: 200, body: refused });
    });
  }

  it('holds a blocks(from:, to:) range to the same span, naming the field', async () => {
    const refusedBlocks = { errors: [{ message: `Range too large: blocks spans at most ${MAX} blocks`, extensions: { code: 'BAD_USER_INPUT' } }] };
    expect(await post('{ blocks(from: 0) { logs(filter: {}) { index } } }')).to.deep.equal({ status: 200, body: refusedBlocks });
    expect(await post('query ($to: Long) { r: blocks(from: 0, to: $to) { number } }', { to: 3 * MAX })).to.deep.equal({ status: 200, body: refusedBlocks });
    const { body } = await post('{ blocks(from: 1, to: 3) { number } }');
    expect(body.data.blocks.map((b: { number: string }) => Number(BigInt(b.number)))).to.deep.equal([1, 2, 3]);
  });

  it('answers a span within the bound, tags and numbers alike', async () => {
    const head = Number(BigInt((await post('{ block { number } }')).body.data.block.number));
    for (const query of [`{ logs(filter: { fromBlock: ${head - MAX + 1} }) { index } }`, `{ logs(filter: { fromBlock: 0, toBlock: "0x${(MAX - 1).toString(16)}" }) { index } }`]) {
      const { status, body } = await post(query);
      expect(status).to.equal(200);
      expect(body, query).to.deep.equal({ data: { logs: [] } });
    }
  });
});

describe('LogRange', () => {
  const refusal = async (check: Promise<unknown>) => check.then(() => undefined, (err: GatewayError) => err.message);

  it('refuses a tagged span when the head cannot be read; number bounds and a blockHash query need no head', async () => {
    let reads = 0;
    const range = new LogRange(MAX, async () => {
      reads++;
      throw new GatewayError('UPSTREAM_UNAVAILABLE', 'eth_blockNumber: connection refused');
    });
    expect(await refusal(range.check('eth_getLogs', { fromBlock: 'earliest' }))).to.equal('Upstream unavailable: eth_blockNumber: connection refused');
    expect(await refusal(range.check('eth_getLogs', { fromBlock: '0x0', toBlock: '0x63' }))).to.equal(undefined);
    expect(await refusal(range.check('eth_getLogs', { fromBlock: '0x0', toBlock: '0x64' }))).to.equal(`Range too large: eth_getLogs spans at most ${MAX} blocks`);
    expect(await refusal(range.check('eth_getLogs', { blockHash: `0x${'ab'.repeat(32)}` }))).to.equal(undefined);
    expect(reads).to.equal(1);
  });

  it('refuses a bound that is neither a block number nor a tag rather than let the node read it its own way', async () => {
    const range = new LogRange(MAX, async () => 1_000);
    expect(await refusal(range.check('eth_getLogs', { fromBlock: 0, toBlock: 'latest' }))).to.match(/^Invalid params: filter.fromBlock must be a hex block number/);
  });

  it('reads the head once for queries arriving together, and again once the one it has is a second old', async () => {
    let clock = 0;
    let reads = 0;
    const range = new LogRange(MAX, async () => (reads++, 1_000), () => clock);
    await Promise.all([range.check('eth_getLogs', {}), range.check('eth_getLogs', { fromBlock: '0x3e8' })]);
    clock = 999;
    await range.check('eth_getLogs', { toBlock: 'finalized' });
    expect(reads).to.equal(1);
    clock = 1_000;
    expect(await refusal(range.check('eth_getLogs', { fromBlock: '0x384' }))).to.equal(`Range too large: eth_getLogs spans at most ${MAX} blocks`);
    expect(reads).to.equal(2);
  });
});
