/**
 * A mirror node that lags the consensus node, as a real one does by a few seconds: a proxy in front of the sandbox's
 * mirror that, while `lagging`, answers one sender's account with the state it had when the lag began and has not yet
 * imported that sender's new contract results. Transactions the relay has submitted and the mirror node does not show
 * yet are counted at "pending" and by the nonce check, as the official relay's pending pool counts them; with two
 * gateways on one Redis (a private redis-server), by either gateway whichever took the transaction.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Wallet, keccak256 } from 'ethers';
import { startLedgerSandbox, type LedgerSandbox } from '../../packages/sandbox/src/index.js';
import { RedisChild } from '../limits/support.js';
import { rpc, startTestGateway, withLedgerNetwork, type TestGateway } from '../support/gateway.js';

const CHAIN_ID = 296;

describe('pending nonces while the mirror node lags', function () {
  this.timeout(60_000);
  let sandbox: LedgerSandbox;
  let proxy: http.Server;
  let t: TestGateway;
  let url: string;
  let mirrorUrl: string;
  let sender: Wallet;
  /** While set: the sender's account as it was, and the transaction hashes the mirror node "has not imported". */
  let lag: { account: string; hidden: Set<string> } | undefined;

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
    sender = new Wallet(sandbox.accounts[0].privateKey);
    proxy = http.createServer(async (req, res) => {
      const path = req.url ?? '/';
      const hiddenHash = [...(lag?.hidden ?? [])].find((hash) => path.startsWith(`/api/v1/contracts/results/${hash}`));
      if (hiddenHash) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"_status":{"messages":[{"message":"Not found"}]}}');
      if (lag && path.toLowerCase().startsWith(`/api/v1/accounts/${sender.address.toLowerCase()}`)) {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(lag.account);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = req.method === 'POST' ? Buffer.concat(chunks) : undefined;
      const upstream = await fetch(`${sandbox.mirrorUrl}${path}`, { method: req.method, headers: { 'content-type': 'application/json' }, body });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    mirrorUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    t = await start();
    url = urlOf(t);
  });
  after(async () => {
    await t?.close();
    await new Promise((resolve) => proxy?.close(resolve));
    await sandbox?.close();
  });

  const start = (limits = {}) =>
    startTestGateway({
      chains: withLedgerNetwork('testnet', {
        chainId: CHAIN_ID,
        apis: ['rpc'],
        ledger: { mirrorUrl, consensus: sandbox.consensus, operatorId: sandbox.operator.accountId, operatorKey: sandbox.operator.privateKey },
      }),
      // The send waits this long for the mirror node to show the transaction, then answers its hash anyway.
      relay: { mirrorTotalMs: 500 },
      limits,
    });
  const urlOf = (g: TestGateway) => `${g.gw.url}/hedera-testnet/v1/${g.key}/rpc`;
  const call = async (method: string, params: unknown[], at = url) => (await rpc(at, { jsonrpc: '2.0', id: 1, method, params })).json;
  const count = async (tag: string, at = url) => Number((await call('eth_getTransactionCount', [sender.address, tag], at)).result);

  async function send(nonce: number, at = url) {
    const gasPrice = BigInt((await call('eth_gasPrice', [], at)).result);
    const raw = await sender.signTransaction({ chainId: CHAIN_ID, type: 2, nonce, to: sandbox.accounts[1].address, value: 10n ** 10n, gasLimit: 21_000, maxFeePerGas: gasPrice, maxPriorityFeePerGas: 0 });
    lag!.hidden.add(keccak256(raw));
    return call('eth_sendRawTransaction', [raw], at);
  }

  it('counts submitted transactions at "pending", not at "latest", and takes the next nonce after them', async () => {
    const start = await count('latest');
    const account = await (await fetch(`${sandbox.mirrorUrl}/api/v1/accounts/${sender.address}`)).text();
    lag = { account, hidden: new Set() };
    expect((await send(start)).result).to.match(/^0x[0-9a-f]{64}$/);
    expect(await count('latest')).to.equal(start);
    expect(await count('pending')).to.equal(start + 1);
    const second = await send(start + 1);
    expect(second.result, JSON.stringify(second)).to.match(/^0x[0-9a-f]{64}$/);
    expect(await count('pending')).to.equal(start + 2);
    // Imported at last: the mirror node's own nonce takes over.
    lag = undefined;
    expect(await count('latest')).to.equal(start + 2);
    expect(await count('pending')).to.equal(start + 2);
  });

  it('two gateways on one Redis: a nonce sent through one counts at the other, and a burst spread over both goes through in order', async () => {
    const redis = await RedisChild.start();
    const gateways = [await start({ redisUrl: redis.url }), await start({ redisUrl: redis.url })];
    const [a, b] = gateways.map(urlOf);
    try {
      const first = await count('latest', a);
      const account = await (await fetch(`${sandbox.mirrorUrl}/api/v1/accounts/${sender.address}`)).text();
      lag = { account, hidden: new Set() };
      expect((await send(first, a)).result).to.match(/^0x[0-9a-f]{64}$/);
      expect(await count('pending', b)).to.equal(first + 1);
      const second = await send(first + 1, b);
      expect(second.result, JSON.stringify(second)).to.match(/^0x[0-9a-f]{64}$/);
      // Sent at once, alternately to each gateway: each waits for its sender's turn, wherever the one before it is.
      const burst = await Promise.all([2, 3, 4, 5].map((k) => send(first + k, k % 2 === 0 ? a : b)));
      for (const sent of burst) expect(sent.result, JSON.stringify(sent)).to.match(/^0x[0-9a-f]{64}$/);
      expect(await count('pending', a)).to.equal(first + 6);
      lag = undefined;
      expect(await count('latest', b)).to.equal(first + 6);
    } finally {
      lag = undefined;
      await Promise.all(gateways.map((g) => g.close()));
      await redis.down();
    }
  });
});
