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

interface RouteOpts {
  current: boolean;
  /** When the fee schedule and the exchange rate last changed; the examples' own timestamps otherwise. */
  feesSince?: string;
}

function route(path: string, opts: RouteOpts): { status: number; body: unknown } {
  const [pathname, query = ''] = path.split('?');
  const { current, feesSince } = opts;
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
  if (pathname === '/api/v1/contracts/results') {
    const busy = BLOCKS.find((b) => b.number === BUSY_BLOCK);
    // The busy block's results by its timestamp range, or by the mirror node's block.number / block.hash filters.
    const busyFilters = [`timestamp=gte:${busy.timestamp.from}&timestamp=lte:${busy.timestamp.to}`, `block.number=${busy.number}&`, `block.hash=${busy.hash.slice(0, 66)}&`];
    if (!busyFilters.some((f) => query.startsWith(f))) return { status: 200, body: { results: [], links: { next: null } } };
    if (query.endsWith('&page=2')) return { status: 200, body: { results: RESULTS.slice(2), links: { next: null } } };
    return { status: 200, body: { results: RESULTS.slice(0, 2), links: { next: `${path}&page=2` } } };
  }
  if (pathname === '/api/v1/network/fees') return { status: 200, body: { ...FEES, timestamp: feesSince ?? FEES.timestamp } };
  if (pathname === '/api/v1/network/exchangerate') return { status: 200, body: { ...EXCHANGE_RATE, timestamp: feesSince ?? EXCHANGE_RATE.timestamp } };
  const contractId = /^\/api\/v1\/contracts\/([^/]+)$/.exec(pathname)?.[1]?.toLowerCase();
  if (contractId !== undefined && contractId !== 'results') {
    const num = Number(CONTRACT.contract_id.split('.')[2]);
    const names = [CONTRACT.contract_id, String(num), `0x${num.toString(16).padStart(40, '0')}`, CONTRACT.evm_address];
    if (names.includes(contractId)) return { status: 200, body: CONTRACT };
  }
  const resultId = /^\/api\/v1\/contracts\/results\/(0x[0-9a-f]{64})$/.exec(pathname)?.[1];
  if (resultId === RESULT_DETAILS.hash) return { status: 200, body: RESULT_DETAILS };
  return { status: 404, body: { _status: { messages: [{ message: 'Not found' }] } } };
}

/**
 * `current`: answer `hbar=false` as a mirror node from v0.154 does; otherwise refuse it as v0.145 did. `feesSince`:
 * when the fee schedule and the exchange rate last changed.
 */
export async function startFixtureMirror(opts: { current?: boolean; feesSince?: string } = {}): Promise<FixtureMirror> {
  const paths: string[] = [];
  let held: Array<() => void> | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    paths.push(req.url ?? '');
    const answer = () => {
      const { status, body } = route(req.url ?? '', { current: opts.current ?? false, feesSince: opts.feesSince });
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
