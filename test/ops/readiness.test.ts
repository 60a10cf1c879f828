import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import type { ConfigInput } from '../../src/config/schema.js';
import type { TestGateway } from '../support/gateway.js';
import { needService } from '../support/services.js';
import { startOpsGateway } from './support.js';

async function listen(server: net.Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return (server.address() as net.AddressInfo).port;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise((r) => server.close(r));
  return port;
}

/** An EVM upstream stand-in that answers every JSON-RPC call with 0x1: block 1, and chain id 1 to the start-up check. */
function evmStub(): http.Server {
  return http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":0,"result":"0x1"}'));
  });
}

async function readyz(t: TestGateway): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const res = await fetch(`${t.gw.privateUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
}

/** Readiness answers are shared for a moment; wait for the next round rather than assuming its timing. */
async function readyzUntil(t: TestGateway, done: (r: Awaited<ReturnType<typeof readyz>>) => boolean) {
  for (;;) {
    const r = await readyz(t);
    if (done(r)) return r;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Only these EVM chains, each with its upstreams, and no sandbox: every network is a configured one. */
function withEvmNetworks(networks: Record<string, string[]>): Partial<ConfigInput> {
  const chains: ConfigInput['chains'] = {};
  for (const [name, upstreams] of Object.entries(networks)) {
    chains[name] = { displayName: name, networks: { mainnet: { chainId: 1, upstreams } } };
  }
  return { chains, sandbox: { enabled: false } };
}

describe('readiness: /readyz', function () {
  const stub = evmStub();
  let alive: string;
  let dead: string;
  const gateways: TestGateway[] = [];

  before(async () => {
    alive = `http://127.0.0.1:${await listen(stub)}/`;
    dead = `http://127.0.0.1:${await closedPort()}/`;
  });

  after(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await new Promise((r) => stub.close(r));
  });

  async function start(overrides: Partial<ConfigInput>): Promise<TestGateway> {
    const t = await startOpsGateway(overrides);
    gateways.push(t);
    return t;
  }

  it('is ready when the store, the limiter and one upstream of every configured network answer', async function () {
    const t = await start(withEvmNetworks({ failover: [dead, alive] }));
    const { status, body } = await readyz(t);
    expect(body.checks).to.deep.include({ keyStore: 'ok', limiter: 'ok', 'upstream:failover': 'ok' });
    expect(status).to.equal(200);
    expect(body.status).to.equal('ready');
  });

  it('is 503 and names the network when none of its upstreams answers', async function () {
    const t = await start(withEvmNetworks({ failover: [dead, alive], down: [dead] }));
    const { status, body } = await readyz(t);
    expect(status).to.equal(503);
    expect(body.status).to.equal('not ready');
    expect(body.checks['upstream:failover']).to.equal('ok');
    expect(body.checks['upstream:down']).to.match(/^failed/);
  });

  it('turns 503 when the key store goes away', async function () {
    const t = await start(withEvmNetworks({ failover: [alive] }));
    expect((await readyz(t)).status).to.equal(200);
    await t.gw.keyStore.close();
    gateways.splice(gateways.indexOf(t), 1, { ...t, close: () => t.gw.close() }); // the store is closed already
    const { status, body } = await readyzUntil(t, (r) => r.status !== 200);
    expect(status).to.equal(503);
    expect(body.checks.keyStore).to.match(/^failed/);
  });

  it('reflects Redis: 503 when the shared limiter backend is unreachable and the policy is fail-closed', async function () {
    await needService(this, 'Redis', 6379);
    const t = await start({ ...withEvmNetworks({ failover: [alive] }), limits: { redisUrl: `redis://127.0.0.1:${new URL(dead).port}`, redisFailure: 'fail-closed' } });
    const { status, body } = await readyz(t);
    expect(status).to.equal(503);
    expect(body.checks.limiter).to.match(/^failed/);
  });

  it('is ready on a live Redis', async function () {
    await needService(this, 'Redis', 6379);
    const t = await start({ ...withEvmNetworks({ failover: [alive] }), limits: { redisUrl: 'redis://127.0.0.1:6379' } });
    const { status, body } = await readyz(t);
    expect(body.checks.limiter).to.equal('ok');
    expect(status).to.equal(200);
  });
});
