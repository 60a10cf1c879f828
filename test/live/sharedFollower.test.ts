/**
 * One live-data follower per network across gateway instances on one Redis: three gateways as child processes
 * (`src/main.ts`, as `npm start` runs it) on a private redis-server and one HTTP upstream stand-in, a newHeads
 * subscriber on one of them. Each instance reaches the upstream on its own path, so the stand-in tells who polls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { eventually, RedisChild } from '../limits/support.js';
import { onFreePort } from '../support/ports.js';
import { needTool, TOOLS } from '../support/services.js';
import { Client } from './wsClient.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CHAIN_ID = 11155111;
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const hex = (n: number) => `0x${n.toString(16)}`;
const LOG_ADDRESS = '0x00000000000000000000000000000000000004d2';

/**
 * An EVM node that grows one block per `advance()`; counts eth_blockNumber calls by the path they came on (one path
 * per gateway instance).
 */
class Chain {
  head = 100;
  readonly polls = new Map<string, number>();
  private server?: http.Server;

  async listen(): Promise<string> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const parsed = JSON.parse(body);
        const answers = (Array.isArray(parsed) ? parsed : [parsed]).map((call) => ({ jsonrpc: '2.0', id: call.id, result: this.answer(req.url!, call) }));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  pollsBy(path: string): number {
    return this.polls.get(path) ?? 0;
  }

  private answer(path: string, call: { method: string; params: any[] }): unknown {
    switch (call.method) {
      case 'eth_chainId':
        return hex(CHAIN_ID);
      case 'eth_blockNumber':
        this.polls.set(path, this.pollsBy(path) + 1);
        return hex(this.head);
      case 'eth_getBlockByNumber': {
        const n = call.params[0] === 'latest' ? this.head : Number(BigInt(call.params[0]));
        if (n > this.head) return null;
        return { number: hex(n), hash: hashOf(n), parentHash: hashOf(n - 1), timestamp: hex(1_700_000_000 + n), transactions: [], uncles: [] };
      }
      case 'eth_getLogs': {
        // One log per block, so a logs subscriber sees every block's.
        const { fromBlock, toBlock } = call.params[0];
        const from = Number(BigInt(fromBlock));
        const to = Math.min(this.head, Number(BigInt(toBlock)));
        return Array.from({ length: Math.max(0, to - from + 1) }, (_, k) => ({
          address: LOG_ADDRESS,
          topics: [hashOf(from + k)],
          data: '0x',
          blockNumber: hex(from + k),
          blockHash: hashOf(from + k),
          transactionHash: hashOf(from + k + 1_000_000),
          transactionIndex: '0x0',
          logIndex: '0x0',
          removed: false,
        }));
      }
      default:
        return null;
    }
  }

  close(): void {
    this.server?.closeAllConnections();
    this.server?.close();
  }
}

interface Instance {
  name: string;
  child: ChildProcess;
  base: string;
  key: string;
  output: () => string;
}

/** A gateway process whose upstream is `${upstream}/${name}`, sharing `redisUrl`. */
async function startInstance(name: string, dir: string, upstream: string, redisUrl: string): Promise<Instance> {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(
    config,
    yaml.dump({
      chains: { ethereum: { displayName: 'Ethereum', networks: { sepolia: { chainId: CHAIN_ID, upstreams: [`${upstream}/${name}`] } } } },
      limits: { redisUrl },
      live: { pollIntervalMs: 100, leaseMs: 1_500 },
      // The pool's own head probes would count as polls too.
      upstreamHealth: { probeIntervalMs: 3_600_000 },
    }),
  );
  return onFreePort((port) => spawnInstance(name, config, port, dir));
}

/** Rejects when the gateway exits before it serves (its port, or PORT + 1, taken meanwhile): tried again on another. */
async function spawnInstance(name: string, config: string, port: number, dir: string): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', GATEWAY_CONFIG: config, PORT: String(port), DATA_DIR: join(dir, `${name}-data`) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await eventually(() => /Demo API key:\s+\S+/.test(output) || child.exitCode !== null, `${name} to start`, 2_400);
  const key = /Demo API key:\s+(\S+)/.exec(output)?.[1];
  if (!key) {
    child.kill('SIGKILL');
    throw new Error(`${name} did not start:\n${output}`);
  }
  return { name, child, base: `http://127.0.0.1:${port}`, key, output: () => output };
}

async function stop(instance: Instance): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = once(instance.child, 'exit');
  instance.child.kill('SIGKILL');
  await exited;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const numbers = (heads: any[]) => heads.map((h) => Number(BigInt(h.number)));

describe('live: one follower per network across instances on one Redis', function () {
  this.timeout(180_000);
  let dir: string;
  let redis: RedisChild;
  let chain: Chain;
  let upstream: string;
  let instances: Instance[] = [];
  let grow: NodeJS.Timeout | undefined;

  before(async function () {
    needTool(this, TOOLS.redisServer);
    dir = mkdtempSync(join(tmpdir(), 'gateway-follower-'));
    redis = await RedisChild.start();
    chain = new Chain();
    upstream = await chain.listen();
  });
  afterEach(async () => {
    clearInterval(grow);
    await Promise.all(instances.map(stop));
    instances = [];
  });
  after(async () => {
    chain?.close();
    await redis?.down();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Three instances, each with a newHeads and a logs subscriber; the chain grows a block every 150 ms. */
  async function threeSubscribed(): Promise<{ clients: Client[]; subs: string[]; logSubs: string[] }> {
    instances = await Promise.all(['i0', 'i1', 'i2'].map((name) => startInstance(name, dir, upstream, redis.url)));
    const clients = await Promise.all(instances.map((i) => Client.open(`${i.base.replace(/^http/, 'ws')}/ethereum-sepolia/v1/${i.key}/rpc`)));
    const subs = await Promise.all(clients.map(async (c) => (await c.call('eth_subscribe', ['newHeads'])).result as string));
    const logSubs = await Promise.all(clients.map(async (c) => (await c.call('eth_subscribe', ['logs', { address: LOG_ADDRESS }])).result as string));
    grow = setInterval(() => chain.head++, 150);
    return { clients, subs, logSubs };
  }

  /** The block numbers a subscription received, which must be consecutive: each block once, in order. */
  function consecutive(client: Client, sub: string, what: string): number[] {
    const seen = client.notifications(sub).map((r) => Number(BigInt(r.number ?? r.blockNumber)));
    expect(seen, what).to.deep.equal(Array.from({ length: seen.length }, (_, k) => seen[0] + k));
    return seen;
  }

  it('one instance polls the upstream; after a kill -9 of it another takes over, and a subscriber elsewhere gets every block once', async () => {
    const { clients, subs, logSubs } = await threeSubscribed();
    // Settle: the lease is taken and every subscriber has seen blocks.
    await eventually(() => clients.every((c, i) => c.notifications(subs[i]).length >= 5), 'blocks at every instance', 2_400);

    const before = instances.map((i) => chain.pollsBy(`/${i.name}`));
    const headBefore = chain.head;
    await eventually(() => chain.head >= headBefore + 10, 'ten more blocks', 2_400);
    const polled = instances.filter((i, n) => chain.pollsBy(`/${i.name}`) > before[n]);
    // One instance's worth of polls: only the leader reads the chain.
    expect(polled.map((i) => i.name)).to.have.length(1);
    const leader = polled[0];
    const seconds = ((chain.head - headBefore) * 150) / 1_000;
    console.log(`      upstream eth_blockNumber polls/s with 3 instances: ${((chain.pollsBy(`/${leader.name}`) - before[instances.indexOf(leader)]) / seconds).toFixed(1)}`);

    const watchers = instances.map((i, n) => ({ i, client: clients[n], sub: subs[n], logSub: logSubs[n] })).filter((w) => w.i !== leader);
    await stop(leader);
    const killedAt = chain.head;
    await eventually(() => chain.head >= killedAt + 20, 'twenty blocks after the kill', 2_400);
    const survivors = instances.filter((i) => i !== leader);
    const afterKill = survivors.map((i) => chain.pollsBy(`/${i.name}`));
    await eventually(() => watchers.every((w) => numbers(w.client.notifications(w.sub)).includes(killedAt + 15)), 'the blocks after the hand-over', 2_400);
    await sleep(500);
    const nowPolled = survivors.filter((i, n) => chain.pollsBy(`/${i.name}`) > afterKill[n]);
    // Still one poller: the new leader.
    expect(nowPolled).to.have.length(1);

    for (const w of watchers) {
      // Every block exactly once and in order, across the hand-over, and the log of each.
      const seen = consecutive(w.client, w.sub, `blocks at ${w.i.name}`);
      expect(seen.at(-1)).to.be.greaterThan(killedAt + 10);
      for (const h of w.client.notifications(w.sub)) expect(h.hash).to.equal(hashOf(Number(BigInt(h.number))));
      const logged = consecutive(w.client, w.logSub, `logs at ${w.i.name}`);
      expect(logged[0]).to.be.at.most(killedAt);
      expect(logged.at(-1)).to.be.greaterThan(killedAt + 10);
    }
    clients.forEach((c) => c.close());
  });

  it('Redis lost: each instance follows the chain on its own, says so, and rejoins the shared stream without duplicates', async () => {
    const { clients, subs, logSubs } = await threeSubscribed();
    await eventually(() => clients.every((c, i) => c.notifications(subs[i]).length >= 3), 'blocks at every instance', 2_400);
    await redis.down();
    const downAt = chain.head;
    await eventually(() => chain.head >= downAt + 10, 'ten blocks without Redis', 2_400);
    // Every instance now polls the upstream itself.
    const during = instances.map((i) => chain.pollsBy(`/${i.name}`));
    await sleep(600);
    expect(instances.filter((i, n) => chain.pollsBy(`/${i.name}`) > during[n])).to.have.length(3);
    await redis.up();
    const upAt = chain.head;
    await eventually(() => instances.every((i) => /following the shared stream/.test(i.output())), 'every instance to rejoin', 2_400);
    await eventually(() => chain.head >= upAt + 15, 'fifteen blocks after Redis returned', 2_400);
    const after = instances.map((i) => chain.pollsBy(`/${i.name}`));
    await sleep(600);
    expect(instances.filter((i, n) => chain.pollsBy(`/${i.name}`) > after[n])).to.have.length(1);
    for (const i of instances) expect(i.output()).to.match(/cannot reach Redis; following the chain on its own/);
    clients.forEach((c, n) => {
      const seen = consecutive(c, subs[n], `blocks at ${instances[n].name}`);
      expect(seen[0]).to.be.below(downAt);
      expect(seen.at(-1)).to.be.greaterThan(upAt + 5);
      consecutive(c, logSubs[n], `logs at ${instances[n].name}`);
      c.close();
    });
  });
});
