/**
 * Latency with a far mirror node: the mirror stub holds every answer BENCH_MIRROR_DELAY_MS (40 by default), and each
 * method of the production mix (plus the block-hash and historical reads the issue names) is called
 * BENCH_FAR_CALLS times (100 by default) one at a time, cold: every method starts on a fresh gateway and every call
 * names a block no earlier call touched. For each call the stub reports the sequential mirror round trips it took.
 * The official relay, when built, runs the same calls against a stub of its own at the same time.
 */
import { performance } from 'node:perf_hooks';
import { call, child, fmt, gateway, type Child } from './harness.js';
import { blockHash, LATEST_BLOCK, RATES_SET_BLOCK, TRIPS_PATH, txHash } from './mirrorStub.js';
import { officialRelayDir, startOfficialRelay, type OfficialRelay } from './officialRelay.js';

export const MIRROR_DELAY_MS = Number(process.env.BENCH_MIRROR_DELAY_MS ?? 40);
const CALLS = Number(process.env.BENCH_FAR_CALLS ?? 100);
const CONTRACT = '0x00000000000000000000000000000000000003ec';

const hexN = (n: number) => `0x${n.toString(16)}`;
const ethBlockHash = (n: number) => blockHash(n).slice(0, 66);

/** Each method with the body of its i-th call; `block(i)` is a block of this method's own, touched by no other call. */
const METHODS: Array<{ name: string; body: (block: number) => string }> = [
  { name: 'eth_getBlockByNumber, full', body: (n) => call('eth_getBlockByNumber', [hexN(n), true]) },
  { name: 'eth_getBlockByNumber, hashes', body: (n) => call('eth_getBlockByNumber', [hexN(n), false]) },
  { name: 'eth_getBlockByHash, full', body: (n) => call('eth_getBlockByHash', [ethBlockHash(n), true]) },
  { name: 'eth_getLogs, one block by number', body: (n) => call('eth_getLogs', [{ fromBlock: hexN(n), toBlock: hexN(n), address: CONTRACT }]) },
  { name: 'eth_getLogs, by block hash', body: (n) => call('eth_getLogs', [{ blockHash: ethBlockHash(n) }]) },
  { name: 'eth_getTransactionReceipt', body: (n) => call('eth_getTransactionReceipt', [txHash(n, 0).slice(0, 66)]) },
  { name: 'eth_getBalance, latest', body: () => call('eth_getBalance', [`0x${'12'.repeat(20)}`, 'latest']) },
  { name: 'eth_getBalance, at a block', body: (n) => call('eth_getBalance', [`0x${'12'.repeat(20)}`, hexN(n)]) },
  { name: 'eth_call, latest', body: () => call('eth_call', [{ to: CONTRACT, data: '0x70a08231' }, 'latest']) },
  { name: 'eth_blockNumber', body: () => call('eth_blockNumber', []) },
  { name: 'eth_chainId', body: () => call('eth_chainId', []) },
  // Blocks before RATES_SET_BLOCK: the current gas price may not be the one these paid.
  { name: 'eth_getTransactionReceipt, before the rates were set', body: (n) => call('eth_getTransactionReceipt', [txHash(n, 0).slice(0, 66)]) },
];

export interface MethodLatency {
  p50: number;
  p99: number;
  /** Sequential mirror round trips: median and most over the calls. */
  trips: number;
  maxTrips: number;
  errors: number;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/** CALLS calls of one method, one at a time, each with the stub's count of its sequential round trips. */
async function callsOf(url: string, headers: Record<string, string>, mirrorUrl: string, method: number): Promise<MethodLatency> {
  const ms: number[] = [];
  const trips: number[] = [];
  let errors = 0;
  const tripsRead = async () => Number(await (await fetch(new URL(TRIPS_PATH, mirrorUrl))).text());
  await tripsRead();
  for (let i = 0; i < CALLS; i++) {
    const block = LATEST_BLOCK - 1 - method * 1_000 - i;
    if (METHODS[method].name.includes('before the rates') && block >= RATES_SET_BLOCK) throw new Error(`block ${block} is not before the rates were set`);
    const started = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: METHODS[method].body(block) });
    const text = await res.text();
    ms.push(performance.now() - started);
    if (!res.ok || text.includes('"error"')) errors++;
    // A relay may finish its mirror reads after it has answered; give them the time of one round trip.
    await new Promise((r) => setTimeout(r, MIRROR_DELAY_MS + 5));
    trips.push(await tripsRead());
  }
  return { p50: quantile(ms, 0.5), p99: quantile(ms, 0.99), trips: quantile(trips, 0.5), maxTrips: Math.max(...trips), errors };
}

const ledgerChain = (mirrorUrl: string) => ({
  hedera: { kind: 'ledger' as const, displayName: 'Hedera', networks: { testnet: { chainId: 296, apis: ['rpc' as const], ledger: { mirrorUrl, consensus: { '127.0.0.1:1': '0.0.3' } } } } },
});

async function ours(): Promise<MethodLatency[]> {
  const mirror = await child('./stubServer.ts', ['mirror', String(MIRROR_DELAY_MS)]);
  const out: MethodLatency[] = [];
  try {
    for (const m of METHODS.keys()) {
      const gw: Child = await gateway(ledgerChain(mirror.info.url));
      try {
        out.push(await callsOf(`${gw.info.url}/hedera-testnet/rpc`, { 'x-api-key': gw.info.key! }, mirror.info.url, m));
      } finally {
        await gw.stop();
      }
    }
  } finally {
    await mirror.stop();
  }
  return out;
}

/** One official relay for all methods (it starts slowly); every call names a block of its own, so none is cached. */
async function official(dir: string): Promise<MethodLatency[]> {
  const mirror = await child('./stubServer.ts', ['mirror', String(MIRROR_DELAY_MS)]);
  let relay: OfficialRelay | undefined;
  try {
    relay = await startOfficialRelay(dir, mirror.info.url, '0x128');
    const out: MethodLatency[] = [];
    for (const m of METHODS.keys()) out.push(await callsOf(relay.url, {}, mirror.info.url, m));
    return out;
  } finally {
    await Promise.all([relay?.stop(), mirror.stop()]);
  }
}

export interface FarMirror {
  delayMs: number;
  calls: number;
  methods: Array<{ method: string; ours: MethodLatency; official?: MethodLatency }>;
  officialAbsent?: string;
}

/** Both relays at once: each makes one call at a time on a stub of its own, and the delay dwarfs their CPU. */
export async function farMirror(repo: string): Promise<FarMirror> {
  const { dir, lookedIn } = officialRelayDir(repo);
  const [a, b] = await Promise.all([ours(), dir ? official(dir) : undefined]);
  return {
    delayMs: MIRROR_DELAY_MS,
    calls: CALLS,
    methods: METHODS.map((m, i) => ({ method: m.name, ours: a[i], official: b?.[i] })),
    officialAbsent: dir ? undefined : `not built at ${lookedIn} (set OFFICIAL_RELAY_DIR)`,
  };
}

export function describeFarMirror(r: FarMirror): string {
  const cell = (l?: MethodLatency) => (l ? [fmt(l.p50, 1), fmt(l.p99, 1), `${l.trips}${l.maxTrips > l.trips ? ` (max ${l.maxTrips})` : ''}${l.errors ? ` [${l.errors} errors]` : ''}`] : ['', '', '']);
  const header = ['method (cold)', 'ours p50', 'p99', 'trips', 'official p50', 'p99', 'trips', 'p50 ratio'];
  const rows = r.methods.map((m) => [m.method, ...cell(m.ours), ...cell(m.official), m.official ? `${fmt(m.ours.p50 / m.official.p50, 2)}x` : '']);
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i].length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [
    `\nfar mirror node: every mirror answer ${r.delayMs} ms late, ${r.calls} cold calls per method, one at a time (ms; trips = sequential mirror round trips, median)`,
    line(header),
    ...rows.map(line),
    ...(r.officialAbsent ? [`official relay ${r.officialAbsent}`] : []),
  ].join('\n');
}
