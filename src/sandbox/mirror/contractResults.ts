/**
 * Contract results: `/contracts/results`, `/contracts/results/{transactionIdOrHash}`, `/contracts/{id}/results`
 * and `/contracts/{id}/results/{timestamp}`.
 */
import { GatewayError } from '../../errors.js';
import type { LedgerTransaction, LedgerView } from '../ledger/view.js';
import { requireContract, lookupEntity } from './entities.js';
import { canonicalTransactionId, evmAddress, timestampNanos } from './format.js';
import type { MirrorRequest, Route } from './http.js';
import { ALL_OPS, EQ, VALUE, lastValue, matcher, nextLink, page, parseQuery, within, type Query } from './query.js';
import type { EthRecord, EthRecords } from './records.js';

const LIST_RULES = {
  from: { ops: EQ, value: /^(\d{1,10}\.\d{1,10}\.\d{1,10}|(0x)?[A-Fa-f0-9]{40})$/ },
  'block.hash': { ops: EQ, value: VALUE.hash32or48 },
  'block.number': { ops: EQ, value: /^(\d{1,19}|0x[a-fA-F0-9]{1,16})$/ },
  // Child (internal) transactions do not occur on the sandbox, so the flag changes nothing.
  internal: { ops: EQ, value: VALUE.boolean },
  timestamp: { ops: ALL_OPS, value: VALUE.timestamp },
  'transaction.index': { ops: EQ, value: /^\d{1,10}$/ },
};
const TX_ID_OR_HASH = /^((0x)?[A-Fa-f0-9]{64}|\d{1,10}\.\d{1,10}\.\d{1,10}-\d{1,19}-\d{1,9})$/;
const TIMESTAMP_PARAM = /^\d{1,10}(\.\d{1,9})?$/;

/** The contract result with its logs, as the single-result endpoints answer. */
function resultDetails(record: EthRecord) {
  return { ...record.result, logs: record.logs };
}

export function contractResultRoutes(view: LedgerView, records: EthRecords): Route[] {
  /**
   * Ledger-side filters first (cheap, and a block or timestamp range narrows the search by binary search), then the
   * sender and contract filters, which need the EVM's view of each remaining transaction.
   */
  async function list(req: MirrorRequest, q: Query, contractId?: string) {
    const blockHash = lastValue(q, 'block.hash');
    const blockNumber = lastValue(q, 'block.number');
    const txIndex = lastValue(q, 'transaction.index');
    const from = lastValue(q, 'from');
    const times = q.filters.get('timestamp');
    const block =
      blockHash !== undefined ? view.blockByHash(blockHash.replace(/^(0x)?/, '0x'))
      : blockNumber !== undefined ? view.blockByNumber(Number(BigInt(blockNumber)))
      : undefined;
    const sender = from === undefined ? undefined : (evmAddress(from) ?? lookupEntity(view, from)?.evmAddress ?? '');
    const byTime = (tx: LedgerTransaction) => timestampNanos(tx.consensusTimestamp);
    const timeMatches = matcher(times, timestampNanos);

    let txs = within(records.ethereumTransactions(), byTime, times, timestampNanos);
    if (blockHash !== undefined || blockNumber !== undefined) {
      txs = block ? within(txs, byTime, [{ op: 'gte', value: block.timestampFrom }, { op: 'lte', value: block.timestampTo }], timestampNanos) : [];
    }
    let keep = (tx: LedgerTransaction) =>
      (block === undefined || tx.blockNumber === block.number) &&
      (txIndex === undefined || tx.index === Number(txIndex)) &&
      timeMatches(byTime(tx));
    if (contractId !== undefined || sender !== undefined) {
      const built = await Promise.all(txs.filter(keep).map((tx) => records.record(tx)));
      const accepted = new Set(
        built.filter((r) => (contractId === undefined || r.contractId === contractId) && (sender === undefined || r.from === sender)).map((r) => r.tx),
      );
      keep = (tx) => accepted.has(tx);
    }
    const { rows, full } = page(txs, q, keep);
    const results = await Promise.all(rows.map(async (tx) => (await records.record(tx)).result));
    const last = rows.at(-1);
    return {
      results,
      links: {
        next: full && last ? nextLink(req.path, q, [['timestamp', q.order === 'asc' ? 'gt' : 'lt', last.consensusTimestamp]]) : null,
      },
    };
  }

  function byIdOrHash(idOrHash: string): LedgerTransaction | undefined {
    const txId = canonicalTransactionId(idOrHash);
    if (txId) {
      const tx = view.transactionById(txId);
      return tx?.ethHash ? tx : undefined;
    }
    return view.transactionByEthHash(idOrHash.startsWith('0x') ? idOrHash.toLowerCase() : `0x${idOrHash.toLowerCase()}`);
  }

  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/results$/,
      handle: (req) => list(req, parseQuery(req.search, LIST_RULES, { order: 'desc' })),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/results\/([^/]+)$/,
      async handle(req) {
        const q = parseQuery(req.search, { nonce: { ops: EQ, value: /^\d{1,10}$/ } });
        const id = req.params[0];
        if (!TX_ID_OR_HASH.test(id)) throw new GatewayError('MIRROR_INVALID_PARAMETER', 'transactionIdOrHash');
        const tx = byIdOrHash(id);
        // Non-zero nonces name child transactions, which the sandbox never creates.
        if (!tx || Number(lastValue(q, 'nonce') ?? 0) !== 0) throw new GatewayError('NOT_FOUND');
        return resultDetails(await records.record(tx));
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/([^/]+)\/results$/,
      handle(req) {
        const q = parseQuery(req.search, LIST_RULES, { order: 'desc' });
        return list(req, q, requireContract(view, req.params[0]).id);
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/([^/]+)\/results\/([^/]+)$/,
      async handle(req) {
        parseQuery(req.search, {});
        const contract = requireContract(view, req.params[0]);
        const ts = req.params[1];
        if (!TIMESTAMP_PARAM.test(ts)) throw new GatewayError('MIRROR_INVALID_PARAMETER', 'timestamp');
        const nanos = timestampNanos(ts);
        const tx = records.ethereumTransactions().find((t) => timestampNanos(t.consensusTimestamp) === nanos);
        const record = tx && (await records.record(tx));
        if (!record || record.contractId !== contract.id) throw new GatewayError('NOT_FOUND');
        return resultDetails(record);
      },
    },
  ];
}
