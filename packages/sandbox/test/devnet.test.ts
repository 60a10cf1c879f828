import { expect } from 'chai';
import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { sandboxAccounts } from '../src/accounts.js';
import { startDevnet, type Devnet } from '../src/devnet.js';
import { DevnetPool } from '../src/devnets.js';

describe('sandbox: EVM devnet', () => {
  let devnet: Devnet;
  let provider: JsonRpcProvider;

  before(async () => {
    devnet = await startDevnet({ chainId: 11155111 });
    provider = new JsonRpcProvider(devnet.url, undefined, { cacheTimeout: -1, staticNetwork: true });
  });
  after(async () => {
    provider.destroy();
    await devnet.close();
  });

  it('answers with the network chain id', async () => {
    expect((await provider.getNetwork()).chainId).to.equal(11155111n);
  });

  it('lists the prefunded accounts of the well-known mnemonic', async () => {
    const [first] = sandboxAccounts();
    expect(first.address).to.equal('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(await provider.getBalance(first.address)).to.equal(10n ** 22n);
  });

  it('mines sent transactions with default client fee settings', async () => {
    const [a, b] = sandboxAccounts();
    const wallet = new Wallet(a.privateKey, provider);
    const before = await provider.getBalance(b.address);
    const first = await wallet.sendTransaction({ to: b.address, value: parseEther('1') });
    const second = await wallet.sendTransaction({ to: b.address, value: parseEther('2') });
    const [r1, r2] = await Promise.all([first.wait(), second.wait()]);
    expect(r1?.status).to.equal(1);
    expect(r2?.status).to.equal(1);
    expect(r2!.blockNumber).to.be.greaterThan(r1!.blockNumber);
    expect(await provider.getBalance(b.address)).to.equal(before + parseEther('3'));
  });

  it('answers batches in order with ids echoed exactly and passes node errors on', async () => {
    const res = await fetch(devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[{"jsonrpc":"2.0","id":12345678901234567890,"method":"eth_chainId"},{"jsonrpc":"2.0","id":"x","method":"no_such_method"}]',
    });
    const text = await res.text();
    expect(text).to.contain('"id":12345678901234567890,"result":"0xaa36a7"');
    const [, second] = JSON.parse(text);
    expect(second).to.deep.equal({ jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'the method no_such_method does not exist/is not available' } });
  });

  it('answers framing errors in geth\'s words and nothing to a notification', async () => {
    const post = async (body: string) => {
      const res = await fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: res.status, text: await res.text() };
    };
    expect(JSON.parse((await post('{')).text)).to.deep.equal({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    expect(JSON.parse((await post('[]')).text).error).to.deep.equal({ code: -32600, message: 'empty batch' });
    expect(JSON.parse((await post('[1]')).text)).to.deep.equal([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } }]);
    expect(JSON.parse((await post('{"jsonrpc":"1.0","id":7,"method":"eth_chainId"}')).text).error.code).to.equal(-32600);
    expect(await post('{"jsonrpc":"2.0","method":"eth_chainId"}')).to.deep.equal({ status: 204, text: '' });
  });

  it('answers by-name params -32602 (invalid params, as geth and anvil do), and a primitive params -32600', async () => {
    const post = async (body: string) => (await fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
    const byName = await post('{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":{"address":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"}}');
    expect(JSON.parse(byName)).to.deep.equal({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'non-array args' } });
    const inBatch = JSON.parse(await post('[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":{}},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]'));
    expect(inBatch.map((r: any) => r.error?.code ?? r.result)).to.deep.equal([-32602, '0xaa36a7']);
    expect(JSON.parse(await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":"x"}')).error.code).to.equal(-32600);
  });

  it('refuses GET', async () => {
    const res = await fetch(devnet.url);
    expect(res.status).to.equal(405);
  });
});

describe('sandbox: EVM devnet with a block interval', function () {
  this.timeout(30_000);
  let devnet: Devnet;
  let provider: JsonRpcProvider;
  before(async () => {
    devnet = await startDevnet({ chainId: 11155111, blockIntervalMs: 100, history: true });
    provider = new JsonRpcProvider(devnet.url, undefined, { cacheTimeout: -1, staticNetwork: true, pollingInterval: 50 });
  });
  after(async () => {
    provider.destroy();
    await devnet.close();
  });

  it('mines empty blocks while nothing is sent, after the history that fills the same first blocks on every start', async () => {
    const first = await provider.getBlock(1);
    expect(first!.transactions).to.have.length(1);
    const start = await provider.getBlockNumber();
    let latest = start;
    while (latest < start + 2) latest = await provider.getBlockNumber();
    const empty = await provider.getBlock(latest);
    expect(empty!.transactions).to.deep.equal([]);
  });

  it('still mines a transaction at once, without waiting for the interval', async () => {
    const [a, b] = sandboxAccounts();
    const sent = await new Wallet(a.privateKey, provider).sendTransaction({ to: b.address, value: 1n });
    const receipt = await provider.send('eth_getTransactionReceipt', [sent.hash]);
    expect(receipt, 'mined before the send returned').to.not.equal(null);
    expect(receipt.status).to.equal('0x1');
  });
});

describe('sandbox: devnet pool', () => {
  it('starts each network once, on first use, and answers with its chain id', async () => {
    const pool = new DevnetPool();
    try {
      expect(pool.started()).to.deep.equal([]);
      const [u1, u2] = await Promise.all([pool.urlFor('base', 8453), pool.urlFor('base', 8453)]);
      expect(u1).to.equal(u2);
      const other = await pool.urlFor('polygon', 137);
      expect(other).to.not.equal(u1);
      expect(pool.started()).to.deep.equal(['base', 'polygon']);
      const provider = new JsonRpcProvider(other, undefined, { staticNetwork: true });
      expect((await provider.getNetwork()).chainId).to.equal(137n);
      provider.destroy();
    } finally {
      await pool.close();
    }
  });
});
