/** `/api/v1/blocks` and `/api/v1/blocks/{hashOrNumber}`: the ledger's record-file blocks. */
import { invalidParameter, notFound } from './errors.js';
import { HAPI_VERSION_STRING } from '../ledger/hapiVersion.js';
import type { LedgerBlock, LedgerView } from '../ledger/view.js';
import { timestampNanos } from './format.js';
import type { Route } from './http.js';
import { RANGE_OPS, VALUE, matcher, nextLink, page, parseQuery, within } from './query.js';


const HASH_OR_NUMBER = /^(\d{1,10}|(0x)?([A-Fa-f0-9]{64}|[A-Fa-f0-9]{96}))$/;

function blockBody(b: LedgerBlock) {
  return {
    count: b.count,
    gas_used: b.gasUsed,
    hapi_version: HAPI_VERSION_STRING,
    hash: b.hash,
    logs_bloom: b.logsBloom,
    name: b.name,
    number: b.number,
    previous_hash: b.previousHash,
    size: b.size,
    timestamp: { from: b.timestampFrom, to: b.timestampTo },
  };
}

export function blockRoutes(view: LedgerView): Route[] {
  const listRules = {
    'block.number': { ops: RANGE_OPS, value: VALUE.blockNumber },
    timestamp: { ops: RANGE_OPS, value: VALUE.timestamp },
  };
  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/blocks$/,
      handle(req) {
        const q = parseQuery(req.search, listRules, { order: 'desc' });
        const numbers = q.filters.get('block.number');
        const numberMatches = matcher(numbers, BigInt);
        const endMatches = matcher(q.filters.get('timestamp'), timestampNanos);
        // The real node filters blocks on the end of their timestamp range.
        const { rows, full } = page(
          within(view.blocks(), (b) => BigInt(b.number), numbers, BigInt),
          q,
          (b) => numberMatches(BigInt(b.number)) && endMatches(timestampNanos(b.timestampTo)),
        );
        const last = rows.at(-1);
        return {
          blocks: rows.map(blockBody),
          links: {
            next: full && last ? nextLink(req.path, q, [['block.number', q.order === 'asc' ? 'gt' : 'lt', String(last.number)]]) : null,
          },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/blocks\/([^/]+)$/,
      handle(req) {
        parseQuery(req.search, {});
        const id = req.params[0];
        if (!HASH_OR_NUMBER.test(id)) throw invalidParameter('hashOrNumber');
        const block = /^\d+$/.test(id) ? view.blockByNumber(Number(id)) : view.blockByHash(id.startsWith('0x') ? id.toLowerCase() : `0x${id.toLowerCase()}`);
        if (!block) throw notFound();
        return blockBody(block);
      },
    },
  ];
}
