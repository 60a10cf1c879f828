/**
 * One live-data follower per network across gateway instances on one Redis: three gateways as child processes on a
 * private redis-server and one HTTP upstream stand-in, newHeads and logs subscribers on each of them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { eventually, RedisChild } from '../limits/support.js';
import { needTool, TOOLS } from '../support/services.js';
import { Chain, hashOf, LOG_ADDRESS, startInstance, stop, type Instance } from './gatewayInstances.js';
import { Client } from './wsClient.js';

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

  it("the leader's upstream failing is retried by it, not taken for a Redis fault: subscribers get every block once after", async () => {
    const { clients, subs } = await threeSubscribed();
    await eventually(() => clients.every((c, i) => c.notifications(subs[i]).length >= 3), 'blocks at every instance', 2_400);
    const before = instances.map((i) => chain.pollsBy(`/${i.name}`));
    await sleep(500);
    const leader = instances.find((i, n) => chain.pollsBy(`/${i.name}`) > before[n])!;
    chain.failing.add(`/${leader.name}`);
    const failedAt = chain.head;
    await eventually(() => chain.head >= failedAt + 8, 'blocks while the upstream fails', 2_400);
    chain.failing.clear();
    await eventually(() => clients.every((c, i) => numbers(c.notifications(subs[i])).includes(failedAt + 15)), 'blocks after the upstream recovered', 2_400);
    for (const i of instances) expect(i.output()).not.to.match(/cannot reach Redis/);
    clients.forEach((c, n) => {
      consecutive(c, subs[n], `blocks at ${instances[n].name}`);
      c.close();
    });
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
