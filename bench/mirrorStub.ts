/**
 * A fast mirror-node stand-in for the relay benchmark: synthetic but correctly shaped answers (the reference
 * examples' shapes) for a chain of LATEST_BLOCK blocks with two contract results each, computed on the fly, and a
 * count of every request so the benchmark can report mirror-node requests per relay request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const LATEST_BLOCK = 50_000;
/**
 * The block in which the fee schedule and the exchange rate were last set: a receipt of a later transaction can take
 * the current gas price, one of an earlier one reads the price at its block's end.
 */
export const RATES_SET_BLOCK = LATEST_BLOCK - 10_000;
export const COUNT_PATH = '/__requests';
/** Reads, and restarts, the longest chain of sequential requests seen since the last read (see startMirrorStub). */
export const TRIPS_PATH = '/__trips';
const GENESIS_SECONDS = 1_700_000_000;
const RESULTS_PER_BLOCK = 2;
const CONTRACT = '0x00000000000000000000000000000000000003ec';

const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');
/** An entity's EVM address (its ECDSA alias, or a contract's address), distinct from its long-zero address. */
const evmAddressOf = (entity: string) => `0x${'e0'.repeat(12)}${hex(Number(BigInt(entity.startsWith('0x') ? entity : `0x${entity}`) & 0xffffffffn), 8)}`;
const LONG_ZERO = /^(0x)?0{24}[0-9a-f]{16}$/i;
export const blockHash = (n: number) => `0x${hex(n, 8)}${'ab'.repeat(40)}`;
export const txHash = (n: number, i: number) => `0x${hex(n, 8)}${hex(i, 4)}${'cd'.repeat(20)}`;
const seconds = (n: number) => GENESIS_SECONDS + 2 * n;
const ts = (s: number, nanos = 0) => `${s}.${String(nanos).padStart(9, '0')}`;
const ZERO_BLOOM = `0x${'0'.repeat(512)}`;

function block(n: number) {
  return {
    count: RESULTS_PER_BLOCK,
    gas_used: 21_000 * RESULTS_PER_BLOCK,
    hapi_version: '0.56.0',
    hash: blockHash(n),
    logs_bloom: ZERO_BLOOM,
    name: `${new Date(seconds(n) * 1000).toISOString().replace(/:/g, '_')}.rcd.gz`,
    number: n,
    previous_hash: n === 0 ? `0x${'0'.repeat(96)}` : blockHash(n - 1),
    size: 2_048,
    timestamp: { from: ts(seconds(n)), to: ts(seconds(n) + 1, 999_999_999) },
  };
}

function log(n: number, i: number) {
  return {
    address: CONTRACT,
    bloom: '0x',
    contract_id: '0.0.1004',
    data: `0x${hex(n, 32)}`,
    index: 0,
    root_contract_id: null,
    timestamp: ts(seconds(n), i + 1),
    topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', `0x${hex(i, 32)}`],
    transaction_hash: txHash(n, i),
    transaction_index: i,
    block_hash: blockHash(n),
    block_number: n,
  };
}

/** A contract result's monetary fields as the mirror node gives them: tinybar, or weibar when asked with hbar=false. */
function money(tinybarHex: string, weibar: boolean): string {
  return weibar ? `0x${(BigInt(tinybarHex) * 10_000_000_000n).toString(16)}` : tinybarHex;
}

function result(n: number, i: number, withLogs: boolean, weibar = false) {
  return {
    access_list: '0x',
    address: CONTRACT,
    amount: 0,
    block_gas_used: 21_000 * RESULTS_PER_BLOCK,
    block_hash: blockHash(n),
    block_number: n,
    bloom: ZERO_BLOOM,
    call_result: '0x',
    chain_id: '0x128',
    contract_id: '0.0.1004',
    created_contract_ids: [],
    error_message: null,
    failed_initcode: null,
    // Each block's senders are accounts of their own, as on a busy network: a cold block's senders are cold too.
    from: `0x${hex(0x10000 + n * RESULTS_PER_BLOCK + i, 20)}`,
    function_parameters: '0xa9059cbb',
    gas_consumed: 21_000,
    gas_limit: 100_000,
    gas_price: money('0x4a817c80', weibar),
    gas_used: 21_000,
    hash: txHash(n, i),
    max_fee_per_gas: '0x',
    max_priority_fee_per_gas: '0x',
    nonce: n,
    r: `0x${'11'.repeat(32)}`,
    result: 'SUCCESS',
    s: `0x${'22'.repeat(32)}`,
    status: '0x1',
    timestamp: ts(seconds(n), i + 1),
    to: CONTRACT,
    transaction_index: i,
    type: 2,
    v: 1,
    ...(withLogs ? { logs: [log(n, i)], state_changes: [] } : {}),
  };
}

/** The block a `block.number`, `block.hash` or `timestamp=gte:<s.n>` filter points into. */
function blockAt(query: URLSearchParams): number {
  const number = query.get('block.number');
  if (number !== null) return Number(number.replace(/^eq:/, ''));
  const hash = query.get('block.hash');
  if (hash !== null) return parseInt(hash.replace(/^(eq:)?(0x)?/, '').slice(0, 16), 16);
  const gte = query.getAll('timestamp').find((v) => v.startsWith('gte:'));
  const s = gte ? Number(gte.slice(4).split('.')[0]) : seconds(LATEST_BLOCK);
  return Math.max(0, Math.min(LATEST_BLOCK, Math.floor((s - GENESIS_SECONDS) / 2)));
}

/**
 * When the fee schedule and the exchange rate in force at the query's `timestamp=lte:` were set, as the mirror node
 * answers a time before the current files: the ones before them (same prices), set at genesis.
 */
function ratesSetAsOf(q: URLSearchParams): string {
  const at = q.getAll('timestamp').find((v) => v.startsWith('lte:'))?.slice(4);
  return at !== undefined && Number(at) < seconds(RATES_SET_BLOCK) ? ts(GENESIS_SECONDS) : ts(seconds(RATES_SET_BLOCK));
}

function route(method: string, url: URL): [number, unknown] {
  const p = url.pathname.replace(/^\/api\/v1/, '');
  const q = url.searchParams;
  let m: RegExpMatchArray | null;
  // The official relay waits for the mirror node's readiness before it starts.
  if (url.pathname === '/health/readiness' || url.pathname === '/health/liveness') return [200, { status: 'OK' }];
  if (p === '/blocks') {
    const range = q.getAll('block.number');
    if (range.length > 0) {
      const lo = Number(range.find((r) => r.startsWith('gte:'))?.slice(4) ?? 0);
      const hi = Math.min(LATEST_BLOCK, Number(range.find((r) => r.startsWith('lte:'))?.slice(4) ?? LATEST_BLOCK));
      return [200, { blocks: Array.from({ length: Math.max(0, hi - lo + 1) }, (_, i) => block(lo + i)), links: { next: null } }];
    }
    return [200, { blocks: [block(q.get('order') === 'asc' ? 0 : LATEST_BLOCK)], links: { next: null } }];
  }
  if ((m = p.match(/^\/blocks\/(0x[0-9a-f]+|\d+)$/))) {
    const n = m[1].startsWith('0x') ? parseInt(m[1].slice(2, 18), 16) : Number(m[1]);
    return n <= LATEST_BLOCK ? [200, block(n)] : [404, { _status: { messages: [{ message: 'Not found' }] } }];
  }
  if (p === '/contracts/results') {
    const n = blockAt(q);
    return [200, { results: Array.from({ length: RESULTS_PER_BLOCK }, (_, i) => result(n, i, false, q.get('hbar') === 'false')), links: { next: null } }];
  }
  if ((m = p.match(/^\/contracts\/results\/0x([0-9a-f]{64})$/))) {
    return [200, result(parseInt(m[1].slice(0, 16), 16), parseInt(m[1].slice(16, 24), 16), true, q.get('hbar') === 'false')];
  }
  if (p === '/contracts/results/logs' || /^\/contracts\/[^/]+\/results\/logs$/.test(p)) {
    const n = blockAt(q);
    return [200, { logs: Array.from({ length: RESULTS_PER_BLOCK }, (_, i) => log(n, i)), links: { next: null } }];
  }
  if (p === '/contracts/call' && method === 'POST') return [200, { result: `0x${hex(42, 32)}` }];
  if ((m = p.match(/^\/contracts\/(0x[0-9a-f]{40})$/i)) && m[1].toLowerCase() === CONTRACT) {
    return [200, { contract_id: '0.0.1004', created_timestamp: ts(GENESIS_SECONDS), evm_address: evmAddressOf(CONTRACT), runtime_bytecode: '0x6080', deleted: false }];
  }
  if ((m = p.match(/^\/accounts\/(.+)$/))) {
    return [
      200,
      {
        account: '0.0.1001',
        alias: null,
        balance: { balance: 1_000_000_000_000, timestamp: ts(seconds(LATEST_BLOCK)), tokens: [] },
        created_timestamp: ts(GENESIS_SECONDS),
        deleted: false,
        ethereum_nonce: 7,
        evm_address: LONG_ZERO.test(m[1]) ? evmAddressOf(m[1]) : m[1].startsWith('0x') ? m[1] : `0x${hex(1001, 20)}`,
        key: null,
        memo: '',
        transactions: [],
        links: { next: null },
      },
    ];
  }
  if (p === '/network/fees') {
    return [200, { fees: [{ gas: 71, transaction_type: 'ContractCall' }, { gas: 71, transaction_type: 'ContractCreate' }, { gas: 71, transaction_type: 'EthereumTransaction' }], timestamp: ratesSetAsOf(q) }];
  }
  if (p === '/network/exchangerate') {
    return [200, { current_rate: { cent_equivalent: 12, expiration_time: 4102444800, hbar_equivalent: 1 }, next_rate: { cent_equivalent: 12, expiration_time: 4102448400, hbar_equivalent: 1 }, timestamp: ratesSetAsOf(q) }];
  }
  return [404, { _status: { messages: [{ message: 'Not found' }] } }];
}

/** Blocks no relay mix of the bench reads (they read the newest 15,000), for the stub's warm-up. */
const WARM_UP_BELOW = LATEST_BLOCK - 20_000;

/** Every route of the stub on block `n`, as a path with its method. */
export function routesOn(n: number): Array<[method: string, path: string]> {
  const { from, to } = block(n).timestamp;
  const tx = txHash(n, n % RESULTS_PER_BLOCK);
  return [
    ['GET', `/api/v1/blocks/${n}`],
    ['GET', `/api/v1/blocks/${blockHash(n)}`],
    ['GET', '/api/v1/blocks?limit=1&order=desc'],
    ['GET', `/api/v1/contracts/results?block.number=${n}&limit=100&order=asc&hbar=false`],
    ['GET', `/api/v1/contracts/results/logs?timestamp=gte:${from}&timestamp=lte:${to}&limit=100&order=asc`],
    ['GET', `/api/v1/contracts/results/${tx}?hbar=false`],
    ['GET', `/api/v1/contracts/results/logs?transaction.hash=${tx}&limit=100&order=asc`],
    ['GET', `/api/v1/accounts/0x${hex(0x10000 + n, 20)}?transactions=false`],
    ['GET', `/api/v1/contracts/${CONTRACT}`],
    ['GET', '/api/v1/network/fees'],
    ['POST', '/api/v1/contracts/call'],
  ];
}

/**
 * `delayMs` holds every answer that long, as a mirror node that far away would. Each request's depth is one more
 * than the deepest request that had been answered when it arrived: with one relay call at a time, the deepest is the
 * number of sequential mirror round trips that call needed (requests sent together share a depth).
 *
 * With `warmUpRequests`, the stub first answers that many requests of its own over HTTP, on blocks no mix reads,
 * without the delay and uncounted: a mirror node is a long-running service whose code is compiled, and a fresh stub's
 * JIT warm-up on the shared cores would otherwise be charged to the first relay measured against it (the official
 * relay's stub is warmed by that relay's warm-up run).
 */
export async function startMirrorStub(delayMs = 0, warmUpRequests = 0): Promise<{ url: string; close(): Promise<void> }> {
  let count = 0;
  let answeredDepth = 0;
  let deepest = 0;
  let warming = warmUpRequests > 0;
  const server = http.createServer((req, res) => {
    // The benchmark runs this stub in another process and reads the count over HTTP; that read is not counted.
    if (req.url === COUNT_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(String(count));
      return;
    }
    if (req.url === TRIPS_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(String(deepest));
      answeredDepth = deepest = 0;
      return;
    }
    count++;
    const depth = answeredDepth + 1;
    deepest = Math.max(deepest, depth);
    req.resume();
    req.once('end', () => {
      const [status, body] = route(req.method ?? 'GET', new URL(req.url ?? '/', 'http://stub'));
      const text = JSON.stringify(body);
      const send = () => {
        answeredDepth = Math.max(answeredDepth, depth);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      };
      if (delayMs > 0 && !warming) setTimeout(send, delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (warming) {
    const routes = Array.from({ length: Math.ceil(warmUpRequests / 11) }, (_, i) => routesOn(WARM_UP_BELOW - i)).flat();
    let next = 0;
    const worker = async () => {
      for (let r = routes[next++]; r; r = routes[next++]) await (await fetch(`${url}${r[1]}`, { method: r[0] })).arrayBuffer();
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    warming = false;
    count = answeredDepth = deepest = 0;
  }
  return {
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
