/**
 * Error hygiene: with an upstream down, every API answers in the catalogue's words. No answer carries the upstream's
 * address, port, host name or a stack; the cause goes to the request's log line beside its request id.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { Wallet } from 'ethers';
import pino from 'pino';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';

async function closedPort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** What must never reach a client: the stand-ins' addresses, a port, a host name, a stack frame. */
function expectClean(what: string, text: string, port: number): void {
  expect(text, what).to.not.include('127.0.0.1');
  expect(text, what).to.not.include(String(port));
  expect(text, what).to.not.match(/localhost|ECONNREFUSED|\bat [\w.<>]+ \(|\.ts:\d+/);
}

describe('error hygiene: upstreams down', function () {
  this.timeout(120_000);
  let sandbox: TestGateway;
  let t: TestGateway;
  let port: number;
  const lines: Array<Record<string, unknown>> = [];

  before(async () => {
    port = await closedPort();
    const down = `http://127.0.0.1:${port}`;
    // A live mirror node (the sandbox's) with the consensus node down, to reach the submission itself.
    sandbox = await startTestGateway();
    const live = await sandbox.gw.local!.ledgerConfig(sandbox.gw.router.network('hedera-testnet')!);
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
    t = await startTestGateway(
      {
        chains: {
          hedera: {
            kind: 'ledger',
            displayName: 'Hedera',
            networks: {
              mainnet: { chainId: 295, apis: ['rpc', 'rest', 'graphql'], ledger: { mirrorUrl: down, consensus: { [`127.0.0.1:${port}`]: '0.0.3' }, graphqlUrl: `${down}/v1/graphql` } },
              testnet: { chainId: 296, apis: ['rpc'], ledger: { ...live, consensus: { [`127.0.0.1:${port}`]: '0.0.3' } } },
            },
          },
          ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: [down], apis: ['rpc', 'beta-graphql'], graphqlUrl: `${down}/graphql` } } },
        },
        relay: { mirrorRetries: 0, mirrorTotalMs: 2_000 },
        log: { level: 'info' },
      },
      { logger },
    );
  });
  after(async () => {
    await t?.close();
    await sandbox?.close();
  });

  const headers = () => ({ 'x-api-key': t.key, 'x-request-id': `hygiene-${lines.length}` });

  it('the relay with the mirror node down answers -32020 in its own words, the cause in the log', async () => {
    const res = await rpc(`${t.gw.url}/hedera/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }, headers());
    expect(res.json.error).to.deep.equal({ code: -32020, message: 'Mirror node unavailable' });
    expectClean('relay', res.text, port);
    const line = lines.find((l) => l.requestId === res.headers.get('x-request-id'));
    expect(JSON.stringify(line?.internalErrors)).to.include('/api/v1/blocks');
  });

  it('REST with the mirror node down answers 502 in the mirror convention', async () => {
    const res = await fetch(`${t.gw.url}/hedera/api/v1/blocks`, { headers: headers() });
    expect(res.status).to.equal(502);
    const text = await res.text();
    expect(JSON.parse(text)).to.deep.equal({ _status: { messages: [{ message: 'Upstream unavailable' }] } });
    expectClean('REST', text, port);
  });

  it('GraphQL with its upstream down answers 502 in the GraphQL convention, on both GraphQL APIs', async () => {
    for (const path of ['/hedera/v1/graphql', '/ethereum/beta/graphql']) {
      const res = await fetch(`${t.gw.url}${path}`, { method: 'POST', headers: { ...headers(), 'content-type': 'application/json' }, body: '{"query":"{ a }"}' });
      expect(res.status, path).to.equal(502);
      const text = await res.text();
      expect(JSON.parse(text).errors[0]).to.deep.equal({ message: 'Upstream unavailable', extensions: { code: 'BAD_GATEWAY' } });
      expectClean(path, text, port);
    }
  });

  it('an EVM chain with its upstream down answers in the catalogue words', async () => {
    const res = await rpc(`${t.gw.url}/ethereum/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }, headers());
    expect(res.json.error.code).to.equal(-32603);
    expect(res.json.error.message).to.match(/^Upstream unavailable/);
    expectClean('EVM', res.text, port);
  });

  it('a submission with the consensus node down answers without the SDK message', async () => {
    const url = `${t.gw.url}/hedera-testnet/rpc`;
    const [account] = sandboxAccounts(1);
    const ask = async (method: string, params: unknown[]) => (await rpc(url, { jsonrpc: '2.0', id: 1, method, params }, headers())).json.result;
    const wallet = new Wallet(account.privateKey);
    const raw = await wallet.signTransaction({
      to: wallet.address,
      value: 1n,
      nonce: Number(await ask('eth_getTransactionCount', [account.address, 'latest'])),
      gasLimit: 30_000n,
      gasPrice: BigInt(await ask('eth_gasPrice', [])),
      chainId: 296n,
    });
    const res = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }, headers());
    expect(res.json.error, res.text).to.be.an('object');
    expect(res.json.error.message).to.equal('Transaction was not accepted by the network');
    expectClean('consensus', res.text, port);
  });
});
