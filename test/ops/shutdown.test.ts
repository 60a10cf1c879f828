import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import yaml from 'js-yaml';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config/load.js';
import { openKeyStore, type KeyStore } from '../../src/keys/store.js';
import { monthOf } from '../../src/limits/calendar.js';
import { needService, POSTGRES_URL } from '../support/services.js';
import { startOpsGateway } from './support.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
}

/** The chain of the slow networks here; their upstream confirms it at once, for the gateway's start-up check. */
const SLOW_CHAIN_ID = 990_777;

/** An EVM upstream that holds every request until the test releases it, then answers each call with its own id. */
class HeldUpstream {
  private held: Array<{ res: http.ServerResponse; body: string }> = [];
  private arrivals: Array<() => void> = [];
  readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const call = JSON.parse(body) as { id?: unknown; method?: string };
      if (call.method === 'eth_chainId') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: `0x${SLOW_CHAIN_ID.toString(16)}` }));
        return;
      }
      this.held.push({ res, body });
      for (const wake of this.arrivals.splice(0)) wake();
    });
  });

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await new Promise((r) => this.server.once('listening', r));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}/`;
  }

  async arrived(): Promise<void> {
    if (this.held.length === 0) await new Promise<void>((r) => this.arrivals.push(r));
  }

  release(result: string): void {
    for (const { res, body } of this.held.splice(0)) {
      const calls = JSON.parse(body) as { id: unknown } | Array<{ id: unknown }>;
      const answer = (c: { id: unknown }) => ({ jsonrpc: '2.0', id: c.id, result });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls)));
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** `node --import tsx src/main.ts` with a config file, as an operator runs it (no npx, so the signal reaches it). */
async function startMain(dir: string, upstream: string, shutdownGraceMs: number): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null> }> {
  const file = join(dir, `gateway-${randomBytes(4).toString('hex')}.yaml`);
  const config = {
    server: { shutdownGraceMs },
    // Usage is persisted only at shutdown in these tests, so a count in the store proves the final flush.
    limits: { quotaFlushMs: 3_600_000 },
    chains: { slow: { displayName: 'Slow', networks: { mainnet: { chainId: SLOW_CHAIN_ID, upstreams: [upstream] } } } },
  };
  writeFileSync(file, yaml.dump(config));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    // Port 0: the kernel picks both listeners' ports, so none can be taken by another process first; the banner says which.
    env: { PATH: process.env.PATH, GATEWAY_CONFIG: file, PORT: '0', DATABASE_URL: POSTGRES_URL, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const onData = () => {
      const listening = /Gateway:\s+http:\/\/[^\s/]+:(\d+)/.exec(output);
      if (listening) resolve(Number(listening[1]));
    };
    child.stdout!.on('data', onData);
    exited.then((code) => reject(new Error(`gateway exited with ${code} before listening:\n${output}`)));
  });
  return { child, port, exited };
}

function slowCall(port: number, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/rpc', method: 'POST', agent: false, headers: { host: 'slow.localhost', 'content-type': 'application/json', 'x-api-key': key } },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end('{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}');
  });
}

describe('shutdown: SIGTERM', function () {
  // A gateway process started and drained in each test: many seconds on a loaded machine.
  this.timeout(120_000);
  let store: KeyStore;
  let dir: string;
  const upstream = new HeldUpstream();
  let upstreamUrl: string;
  const children: ChildProcess[] = [];

  before(async function () {
    await needService(this, 'Postgres', 5432);
    const { keys, plans } = loadConfig({ env: {}, overrides: { keys: { databaseUrl: POSTGRES_URL } } });
    store = await openKeyStore({ keys, plans });
    dir = mkdtempSync(join(tmpdir(), 'gateway-shutdown-'));
    upstreamUrl = await upstream.start();
  });

  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await upstream.close();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function newKey(): Promise<{ key: string; id: string }> {
    const account = await store.createAccount({ name: 'shutdown-test' });
    const { key, record } = await store.createKey({ accountId: account.id, name: 'shutdown', plan: 'enterprise' });
    return { key, id: record.id };
  }

  it('stops accepting, finishes the request in flight, flushes usage and exits 0', async () => {
    const { key, id } = await newKey();
    const startedIn = monthOf(Date.now());
    const gw = await startMain(dir, upstreamUrl, 60_000);
    children.push(gw.child);
    const inFlight = slowCall(gw.port, key);
    await upstream.arrived();

    gw.child.kill('SIGTERM');
    while (!(await refusesConnections(gw.port))) await new Promise((r) => setTimeout(r, 50));
    expect(gw.child.exitCode, 'still draining').to.equal(null);

    upstream.release('0x2a');
    const answer = await inFlight;
    expect(answer.status).to.equal(200);
    expect(JSON.parse(answer.body)).to.deep.equal({ jsonrpc: '2.0', id: 1, result: '0x2a' });
    expect(await gw.exited).to.equal(0);
    // Counted in the month the request came in: the one the test started in, or the next if the month turned meanwhile.
    const months = [...new Set([startedIn, monthOf(Date.now())])];
    expect((await Promise.all(months.map((m) => store.usage(id, m)))).reduce((a, b) => a + b, 0)).to.equal(1);
  });

  it('bounds the drain: a request that never finishes and an open WebSocket are cut off after the grace period', async () => {
    const t = await startOpsGateway({
      // close() also waits for upstream pools, whose in-flight requests end at the upstream timeout.
      server: { shutdownGraceMs: 300, upstreamTimeoutMs: 1_000 },
      sandbox: { enabled: false },
      chains: {
        slow: { displayName: 'Slow', networks: { mainnet: { chainId: SLOW_CHAIN_ID, upstreams: [upstreamUrl] } } },
        hedera: {
          kind: 'ledger',
          displayName: 'Hedera',
          networks: { mainnet: { chainId: 295, apis: ['rpc', 'graphql'], ledger: { mirrorUrl: upstreamUrl, consensus: 'mainnet', graphqlUrl: upstreamUrl } } },
        },
      },
    });
    const ws = new WebSocket(`ws://127.0.0.1:${t.gw.port}/hedera/v1/graphql`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const wsClosed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    const stuck = slowCall(t.gw.port, t.key).catch((err: Error) => ({ status: 0, body: err.message }));
    await upstream.arrived();

    await t.close();
    expect(await wsClosed).to.be.oneOf([1001, 1006]);
    expect((await stuck).status).to.not.equal(200);
    upstream.release('0x0');
  });
});
