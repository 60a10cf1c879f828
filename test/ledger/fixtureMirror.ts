/**
 * A real HTTP server that answers the relay's mirror-node lookups with the real mirror node's example responses
 * (test/reference/mirror-node/examples), so conversions are checked against real wire data. It records every
 * request path, which is how tests count mirror-node requests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const EXAMPLES = fileURLToPath(new URL('../reference/mirror-node/examples/', import.meta.url));

export function example(name: string): any {
  const file = JSON.parse(readFileSync(`${EXAMPLES}${name}.json`, 'utf8'));
  // Most examples are the mirror node's test specs; a few (the relay's) are the bare answer.
  return file.responseJson ?? file.tests?.[0].responseJson ?? file;
}

export const BLOCKS: any[] = example('blocks__no-params').blocks; // 19, 18, 17, 16 (newest first)
export const RESULTS: any[] = example('contracts_results__no-params').results;
export const RESULT_DETAILS: any = example('contracts_results_id__transactionid-or-hash');
export const FEES: any = example('network_fees__order');
export const EXCHANGE_RATE: any = example('relay__network_exchangerate');
/** Contract 0.0.8001: the payer (`from`, long-zero 0x…1f41) of the contract result examples. */
export const CONTRACT: any = example('contracts_id__contract-bytecode');
/** Block whose transactions are the example contract results, served over two pages. */
export const BUSY_BLOCK = 19;

export interface FixtureMirror {
  url: string;
  paths: string[];
  /** Holds answers until release() is called (to test in-flight coalescing). */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/**
 * A contract result's monetary fields in weibar, as a mirror node from v0.154 answers `hbar=false`; written as JSON
 * text by the caller, so an amount past 2^53 goes out exact (a bigint, turned into a bare number below).
 */
function inWeibar(r: any): any {
  const hex = (v: string | null) => (v && v !== '0x' ? `0x${(BigInt(v) * 10n ** 10n).toString(16)}` : v);
  return { ...r, amount: BigInt(r.amount ?? 0) * 10n ** 10n, gas_price: hex(r.gas_price), max_fee_per_gas: hex(r.max_fee_per_gas), max_priority_fee_per_gas: hex(r.max_priority_fee_per_gas) };
}

/**
 * How the busy block's HTS token transfer (a HAPI CryptoTransfer, which the EVM never ran) shows, by mirror node
 * generation: `logs`, only its synthetic Transfer log (every release before v0.157); `rows-null-from`, also a
 * synthetic row in /contracts/results with `from: null` (v0.157's release candidates: hiero-mirror-node PR #13503,
 * issue #13766); `rows`, that row sent by the payer (from PR #13774, v0.158 on); `rows-single`, that row also
 * answering /contracts/results/{hash} with its logs, 206 (open PR #14305's spec tests).
 */
export type SyntheticMode = 'logs' | 'rows-null-from' | 'rows' | 'rows-single';

const TOKEN = '0x0000000000000000000000000000000000000bb9';
const PAYER = '0x0000000000000000000000000000000000001f41';
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** The HTS transfer's 32-byte hash, as its logs and its synthetic row carry it. */
export const SYNTHETIC_HASH = `0x${'5e'.repeat(32)}`;

function syntheticLog(): any {
  const busy = BLOCKS.find((b) => b.number === BUSY_BLOCK);
  return {
    address: TOKEN,
    bloom: '0x',
    contract_id: '0.0.3001',
    data: `0x${'0'.repeat(62)}64`,
    index: 0,
    root_contract_id: null,
    timestamp: '187655.000123460',
    topics: [TRANSFER_TOPIC, `0x${'0'.repeat(24)}${PAYER.slice(2)}`, `0x${'0'.repeat(63)}5`],
    transaction_hash: SYNTHETIC_HASH,
    transaction_index: 2,
    block_hash: busy.hash,
    block_number: BUSY_BLOCK,
  };
}

/** The row the mirror node makes of the transfer's log, field for field as issue #13766 quotes one. */
function syntheticRow(mode: SyntheticMode): any {
  const log = syntheticLog();
  return {
    access_list: null, address: TOKEN, amount: null, block_gas_used: 0, block_hash: log.block_hash, block_number: BUSY_BLOCK, bloom: '0x',
    call_result: '0x', chain_id: '0x128', contract_id: log.contract_id, created_contract_ids: [], error_message: null, failed_initcode: null,
    from: mode === 'rows-null-from' ? null : PAYER, function_parameters: '0x', gas_consumed: null, gas_limit: 0, gas_price: '0x47', gas_used: null,
    hash: SYNTHETIC_HASH, max_fee_per_gas: null, max_priority_fee_per_gas: null, nonce: null, r: null, result: 'SUCCESS', s: null, status: '0x1',
    timestamp: log.timestamp, to: TOKEN, transaction_index: log.transaction_index, type: 0, v: null,
  };
}

interface RouteOpts {
  current: boolean;
  /** When the fee schedule and the exchange rate last changed; the examples' own timestamps otherwise. */
  feesSince?: string;
  synthetic?: SyntheticMode;
  /** The consensus time of RESULT_DETAILS, whose example's own (167654.000123456) is not within its block 17. */
  resultTimestamp?: string;
}

/** When the fee schedule and the exchange rate in force before the current ones were set (with the same prices). */
const EARLIER_FILES = '1.000000000';

/** Consensus timestamps in order. */
const notLater = (a: string, b: string) => {
  const [as, an = ''] = a.split('.');
  const [bs, bn = ''] = b.split('.');
  return Number(as) !== Number(bs) ? Number(as) < Number(bs) : an <= bn;
};

/** A file (fees, exchange rate) set at `setAt` as the mirror node answers it for `timestamp=lte:<t>`: the one in force then. */
function fileAt(file: any, setAt: string, query: string): any {
  const at = /(?:^|&)timestamp=lte:([0-9.]+)/.exec(query)?.[1];
  return { ...file, timestamp: at === undefined || notLater(setAt, at) ? setAt : EARLIER_FILES };
}

function route(path: string, opts: RouteOpts): { status: number; body: unknown } {
  const [pathname, query = ''] = path.split('?');
  const { current, feesSince, synthetic } = opts;
  if (/(^|&)hbar=false(&|$)/.test(query) && current) {
    const { status, body } = route(path.replace(/[?&]hbar=false/, ''), opts) as { status: number; body: any };
    if (status !== 200 || !pathname.startsWith('/api/v1/contracts/results')) return { status, body };
    return { status, body: Array.isArray(body.results) ? { ...body, results: body.results.map(inWeibar) } : inWeibar(body) };
  }
  // The examples are v0.145's, which predates the hbar parameter and, like every mirror node, refuses a parameter it
  // does not know.
  if (/(^|&)hbar=/.test(query)) return { status: 400, body: { _status: { messages: [{ message: 'Unknown query parameter: hbar' }] } } };
  if (pathname === '/api/v1/blocks' && query === 'limit=1&order=desc') return { status: 200, body: { blocks: [BLOCKS[0]], links: { next: null } } };
  if (pathname === '/api/v1/blocks' && query === 'limit=1&order=asc') return { status: 200, body: { blocks: [BLOCKS.at(-1)], links: { next: null } } };
  const blockId = /^\/api\/v1\/blocks\/(.+)$/.exec(pathname)?.[1];
  if (blockId !== undefined) {
    const block = BLOCKS.find((b) => String(b.number) === blockId || b.hash.startsWith(blockId.toLowerCase()));
    return block ? { status: 200, body: block } : { status: 404, body: { _status: { messages: [{ message: 'Not found' }] } } };
  }
  if (pathname === '/api/v1/contracts/results' && synthetic && query.startsWith(`from=${PAYER}&`)) {
    // The payer's newest result is its HTS transfer (when the mirror node lists those), then its Ethereum transaction.
    const before = /timestamp=lt:/.test(query);
    if (before || synthetic === 'logs') return { status: 200, body: { results: [RESULTS[0]], links: { next: null } } };
    const row = syntheticRow(synthetic);
    return { status: 200, body: { results: [row], links: { next: `${pathname}?${query.replace(/timestamp=lte:[^&]+/, `timestamp=lt:${row.timestamp}`)}` } } };
  }
  if (pathname === '/api/v1/contracts/results') {
    const busy = BLOCKS.find((b) => b.number === BUSY_BLOCK);
    // The busy block's results by its timestamp range, or by the mirror node's block.number / block.hash filters.
    const busyFilters = [`timestamp=gte:${busy.timestamp.from}&timestamp=lte:${busy.timestamp.to}`, `block.number=${busy.number}&`, `block.hash=${busy.hash.slice(0, 66)}&`];
    if (!busyFilters.some((f) => query.startsWith(f))) return { status: 200, body: { results: [], links: { next: null } } };
    const rows = synthetic && synthetic !== 'logs' ? [syntheticRow(synthetic)] : [];
    if (query.endsWith('&page=2')) return { status: 200, body: { results: [...RESULTS.slice(2), ...rows], links: { next: null } } };
    return { status: 200, body: { results: RESULTS.slice(0, 2), links: { next: `${path}&page=2` } } };
  }
  if (pathname === '/api/v1/contracts/results/logs' && synthetic) {
    const busy = BLOCKS.find((b) => b.number === BUSY_BLOCK);
    const ofBusy = query.startsWith(`timestamp=gte:${busy.timestamp.from}&timestamp=lte:${busy.timestamp.to}&`) || query.startsWith(`transaction.hash=${SYNTHETIC_HASH}&`);
    return { status: 200, body: { logs: ofBusy ? [syntheticLog()] : [], links: { next: null } } };
  }
  if (pathname === '/api/v1/network/fees') return { status: 200, body: fileAt(FEES, feesSince ?? FEES.timestamp, query) };
  if (pathname === '/api/v1/network/exchangerate') return { status: 200, body: fileAt(EXCHANGE_RATE, feesSince ?? EXCHANGE_RATE.timestamp, query) };
  const contractId = /^\/api\/v1\/contracts\/([^/]+)$/.exec(pathname)?.[1]?.toLowerCase();
  if (contractId !== undefined && contractId !== 'results') {
    const num = Number(CONTRACT.contract_id.split('.')[2]);
    const names = [CONTRACT.contract_id, String(num), `0x${num.toString(16).padStart(40, '0')}`, CONTRACT.evm_address];
    if (names.includes(contractId)) return { status: 200, body: CONTRACT };
  }
  const resultId = /^\/api\/v1\/contracts\/results\/(0x[0-9a-f]{64})$/.exec(pathname)?.[1];
  if (resultId === RESULT_DETAILS.hash) return { status: 200, body: { ...RESULT_DETAILS, timestamp: opts.resultTimestamp ?? RESULT_DETAILS.timestamp } };
  if (resultId === SYNTHETIC_HASH && synthetic === 'rows-single') return { status: 206, body: { ...syntheticRow(synthetic), logs: [syntheticLog()], state_changes: [] } };
  return { status: 404, body: { _status: { messages: [{ message: 'Not found' }] } } };
}

/**
 * `current`: answer `hbar=false` as a mirror node from v0.154 does; otherwise refuse it as v0.145 did. `feesSince`:
 * when the fee schedule and the exchange rate last changed (asked for a time before that, it answers the files in force
 * before, set at EARLIER_FILES with the same prices). `synthetic`: the busy block also holds an HTS transfer.
 * `resultTimestamp`: the consensus time RESULT_DETAILS is given.
 */
export async function startFixtureMirror(opts: { current?: boolean; feesSince?: string; synthetic?: SyntheticMode; resultTimestamp?: string } = {}): Promise<FixtureMirror> {
  const paths: string[] = [];
  let held: Array<() => void> | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    paths.push(req.url ?? '');
    const answer = () => {
      const { status, body } = route(req.url ?? '', { current: opts.current ?? false, feesSince: opts.feesSince, synthetic: opts.synthetic, resultTimestamp: opts.resultTimestamp });
      const text = JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? `#big#${v}` : v)).replace(/"#big#(\d+)"/g, '$1');
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    };
    if (held) held.push(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    hold: () => {
      held = [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const answer of waiting) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
