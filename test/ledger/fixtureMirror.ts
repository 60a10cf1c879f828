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
  return file.responseJson ?? file.tests[0].responseJson;
}

export const BLOCKS: any[] = example('blocks__no-params').blocks; // 19, 18, 17, 16 (newest first)
export const RESULTS: any[] = example('contracts_results__no-params').results;
export const RESULT_DETAILS: any = example('contracts_results_id__transactionid-or-hash');
export const FEES: any = example('network_fees__order');
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

function route(path: string): { status: number; body: unknown } {
  const [pathname, query = ''] = path.split('?');
  if (pathname === '/api/v1/blocks' && query === 'limit=1&order=desc') return { status: 200, body: { blocks: [BLOCKS[0]], links: { next: null } } };
  if (pathname === '/api/v1/blocks' && query === 'limit=1&order=asc') return { status: 200, body: { blocks: [BLOCKS.at(-1)], links: { next: null } } };
  const blockId = /^\/api\/v1\/blocks\/(.+)$/.exec(pathname)?.[1];
  if (blockId !== undefined) {
    const block = BLOCKS.find((b) => String(b.number) === blockId || b.hash.startsWith(blockId.toLowerCase()));
    return block ? { status: 200, body: block } : { status: 404, body: { _status: { messages: [{ message: 'Not found' }] } } };
  }
  if (pathname === '/api/v1/contracts/results') {
    const busy = BLOCKS.find((b) => b.number === BUSY_BLOCK);
    if (!query.startsWith(`timestamp=gte:${busy.timestamp.from}&timestamp=lte:${busy.timestamp.to}`)) return { status: 200, body: { results: [], links: { next: null } } };
    if (query.endsWith('&page=2')) return { status: 200, body: { results: RESULTS.slice(2), links: { next: null } } };
    return { status: 200, body: { results: RESULTS.slice(0, 2), links: { next: `${path}&page=2` } } };
  }
  if (pathname === '/api/v1/network/fees') return { status: 200, body: FEES };
  const resultId = /^\/api\/v1\/contracts\/results\/(0x[0-9a-f]{64})$/.exec(pathname)?.[1];
  if (resultId === RESULT_DETAILS.hash) return { status: 200, body: RESULT_DETAILS };
  return { status: 404, body: { _status: { messages: [{ message: 'Not found' }] } } };
}

export async function startFixtureMirror(): Promise<FixtureMirror> {
  const paths: string[] = [];
  let held: Array<() => void> | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    paths.push(req.url ?? '');
    const answer = () => {
      const { status, body } = route(req.url ?? '');
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
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
