/**
 * What the live-data follower costs the upstream with 1 and with 4 instances: each instance a gateway process (as
 * `npm start` runs it) with one WebSocket subscriber (newHeads and logs) on an EVM network whose upstream is a
 * counting stand-in growing a block every BLOCK_MS. Counted over a fixed window once every subscriber has had blocks:
 * every JSON-RPC call the instances made to the upstream (heads, blocks, logs), per second. With one Redis the
 * instances share one follower, so 4 should cost what 1 does; without it each follows the chain itself.
 * Each configuration names its own chain, so no two share a lease or a stream in Redis.
 */
import { Chain } from '../test/live/gatewayInstances.js';
import { Client } from '../test/live/wsClient.js';
import { fmt, gateway } from './harness.js';

const SECONDS = Number(process.env.BENCH_FOLLOWER_SECONDS ?? 12);
const BLOCK_MS = 500;
/** Blocks each subscriber must have seen before the window opens: the lease is taken and every feed is running. */
const SETTLE_BLOCKS = 3;

const CONFIGS = [
  { name: '1 instance on Redis', instances: 1, limiter: 'redis' },
  { name: '4 instances on one Redis', instances: 4, limiter: 'redis' },
  { name: '4 instances without Redis', instances: 4, limiter: 'memory' },
] as const;

export interface FollowerCost {
  instances: number;
  /** Upstream JSON-RPC calls per second over the window, all instances together. */
  callsPerSecond: number;
  /** Of which eth_blockNumber polls. */
  pollsPerSecond: number;
  /** Instances that called the upstream during the window. */
  polling: number;
  /** Notifications each subscriber received during the window (least and most). */
  notified: [number, number];
}

export async function followerCosts(): Promise<Record<string, FollowerCost>> {
  const costs: Record<string, FollowerCost> = {};
  for (const c of CONFIGS) costs[c.name] = await costOf(c.instances, c.limiter);
  return costs;
}

async function costOf(instances: number, limiter: 'redis' | 'memory'): Promise<FollowerCost> {
  const chain = new Chain();
  const upstream = await chain.listen();
  const grow = setInterval(() => chain.head++, BLOCK_MS);
  const name = `follow${Date.now().toString(36)}`;
  const paths = Array.from({ length: instances }, (_, i) => `/i${i}`);
  const gws = await Promise.all(
    paths.map((path) =>
      gateway(
        { [name]: { displayName: 'Follower bench', networks: { sepolia: { chainId: 11155111, upstreams: [`${upstream}${path}`] } } } },
        limiter,
        // The pool's own head probes are per instance whatever the follower does: left out of the count.
        { probeIntervalMs: 3_600_000 },
      ),
    ),
  );
  const clients: Client[] = [];
  try {
    for (const gw of gws) clients.push(await Client.open(`${gw.info.url.replace(/^http/, 'ws')}/${name}-sepolia/v1/${gw.info.key}/rpc`));
    const subs = await Promise.all(clients.map(async (c) => [(await c.call('eth_subscribe', ['newHeads'])).result, (await c.call('eth_subscribe', ['logs', {}])).result] as string[]));
    const received = () => clients.map((c, i) => subs[i].reduce((n, sub) => n + c.notifications(sub).length, 0));
    await clients[0].until(() => (received().every((n) => n >= 2 * SETTLE_BLOCKS) ? true : undefined));
    const calls = () => paths.map((p) => chain.calls.get(p) ?? 0);
    const polls = () => paths.reduce((n, p) => n + chain.pollsBy(p), 0);
    const [callsBefore, pollsBefore, notifiedBefore] = [calls(), polls(), received()];
    await new Promise((r) => setTimeout(r, SECONDS * 1_000));
    const [callsAfter, pollsAfter, notifiedAfter] = [calls(), polls(), received()];
    const made = callsAfter.map((n, i) => n - callsBefore[i]);
    const notified = notifiedAfter.map((n, i) => n - notifiedBefore[i]);
    return {
      instances,
      callsPerSecond: made.reduce((a, b) => a + b, 0) / SECONDS,
      pollsPerSecond: (pollsAfter - pollsBefore) / SECONDS,
      polling: made.filter((n) => n > 0).length,
      notified: [Math.min(...notified), Math.max(...notified)],
    };
  } finally {
    clients.forEach((c) => c.close());
    clearInterval(grow);
    await Promise.all(gws.map((gw) => gw.stop()));
    chain.close();
  }
}

/** Rows of the bench's table: the case, then its figures and comparison in the last column. */
export function followerRows(costs: Record<string, FollowerCost>): string[][] {
  const one = costs[CONFIGS[0].name];
  return CONFIGS.map(({ name }, i) => {
    const f = costs[name];
    const against = i === 0 ? 'baseline' : `${fmt(f.callsPerSecond / one.callsPerSecond, 2)}x one instance`;
    const note =
      `${against}: ${fmt(f.callsPerSecond, 2)} upstream calls/s (${fmt(f.pollsPerSecond, 2)} head polls/s) from ${f.polling} polling instance(s), ` +
      `${fmt(f.notified[0])}-${fmt(f.notified[1])} notifications per subscriber; a block every ${BLOCK_MS} ms, ${SECONDS} s window`;
    return [`live follower: ${name}, a subscriber each`, '', '', '', note];
  });
}
