/**
 * Contract results: `/contracts/results`, `/contracts/results/{transactionIdOrHash}`, `/contracts/{id}/results`
 * and `/contracts/{id}/results/{timestamp}`, shaped as the real node's view models shape them: the listing by contract
 * shows the contract result alone; the others add the block, the status and the wrapped Ethereum transaction, whose
 * monetary fields follow `hbar`; the single results add logs and state changes. `/contracts/results` also lists
 * HTS transfers made through HAPI as synthetic rows, as v0.158 on do (syntheticResults.ts).
 */
import type { LedgerTransaction, LedgerView } from '../ledger/view.js';
import { contractIdOf, findContract, lookupEntity } from './entities.js';
import { badRequest, invalidParameter, notFound } from './errors.js';
import { WEIBAR_PER_TINYBAR, canonicalTransactionId, evmAddress, hexQuantity, timestampNanos } from './format.js';
import type { MirrorRequest, Route } from './http.js';
import { ALL_OPS, EQ, VALUE, lastValue, matcher, nextLink, page, parseQuery, within, type Query } from './query.js';
import type { EthRecord, EthRecords, Money } from './records.js';
import { syntheticResult, syntheticSender } from './syntheticResults.js';

const HBAR_RULE = { ops: EQ, value: /^(true|false)$/i };
const LIST_RULES = {
  from: { ops: EQ, value: /^(\d{1,10}\.\d{1,10}\.\d{1,10}|(0x)?[A-Fa-f0-9]{40})$/ },
  'block.hash': { ops: EQ, value: VALUE.hash32or48 },
  'block.number': { ops: EQ, value: VALUE.blockNumber },
  hbar: HBAR_RULE,
  // Child (internal) transactions do not occur on the sandbox, so the flag changes nothing.
  internal: { ops: EQ, value: VALUE.boolean },
  timestamp: { ops: ALL_OPS, value: VALUE.timestamp },
  'transaction.index': { ops: EQ, value: /^\d{1,10}$/ },
};
const TX_ID_OR_HASH = /^((0x)?[A-Fa-f0-9]{64}|\d{1,10}\.\d{1,10}\.\d{1,10}-\d{1,19}-\d{1,9})$/;

/** The Ethereum transaction a `{transactionIdOrHash}` path segment names: 400 when malformed, undefined when unknown. */
export function ethTransactionByIdOrHash(view: LedgerView, idOrHash: string): LedgerTransaction | undefined {
  if (!TX_ID_OR_HASH.test(idOrHash)) throw invalidParameter('transactionIdOrHash');
  const txId = canonicalTransactionId(idOrHash);
  if (txId) {
    const tx = view.transactionById(txId);
    return tx?.ethHash ? tx : undefined;
  }
  return view.transactionByEthHash(idOrHash.startsWith('0x') ? idOrHash.toLowerCase() : `0x${idOrHash.toLowerCase()}`);
}
const TIMESTAMP_PARAM = /^\d{1,10}(\.\d{1,9})?$/;

/**
 * `hbar`: monetary fields in tinybar (true, the default) or weibar (false). The real node reads exactly one plain
 * `true` or `false`, in any case; anything else (a repeat, an operator) it refuses in its own words.
 */
function inTinybar(q: Query): boolean {
  const given = q.raw.filter(([name]) => name === 'hbar').map(([, value]) => value);
  if (given.length === 0) return true;
  if (given.length > 1 || !/^(true|false)$/i.test(given[0])) throw badRequest(`Invalid hbar parameter value: ${given.join(',')}. Must be 'true' or 'false'`);
  return given[0].toLowerCase() === 'true';
}

/** A fee field as a hex quantity; one the transaction type does not have is the empty `0x`, and null stays null. */
function fee(weibar: bigint | null | undefined, tinybar: boolean): string | null {
  if (weibar === null) return null;
  return weibar === undefined ? '0x' : hexQuantity(tinybar ? weibar / WEIBAR_PER_TINYBAR : weibar);
}

/** A JSON integer; weibar amounts can pass 2^53 and are then written with every digit (see `sendJson`). */
const integer = (n: bigint) => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n);

function monetary(money: Money | null, tinybar: boolean) {
  if (!money) return { amount: 0, gas_price: null, max_fee_per_gas: null, max_priority_fee_per_gas: null };
  return {
    amount: integer(tinybar ? money.value / WEIBAR_PER_TINYBAR : money.value),
    gas_price: money.feeScheduleGasPriceTinybar !== undefined ? hexQuantity(money.feeScheduleGasPriceTinybar) : fee(money.gasPrice, tinybar),
    max_fee_per_gas: fee(money.maxFeePerGas, tinybar),
    max_priority_fee_per_gas: fee(money.maxPriorityFeePerGas, tinybar),
  };
}

/** A contract result with the block, the status and the Ethereum transaction, as `/contracts/results` lists it. */
function detailed(record: EthRecord, tinybar: boolean) {
  return { ...record.base, ...record.details, ...monetary(record.money, tinybar) };
}

const EMPTY_RESULTS = { results: [], links: { next: null } };

/** The real node leaves WRONG_NONCE results out of every listing; they stay reachable one by one. */
const listed = (tx: LedgerTransaction) => tx.result !== 'WRONG_NONCE';

export function contractResultRoutes(view: LedgerView, records: EthRecords): Route[] {
  /**
   * Ledger-side filters first (cheap, and a block or timestamp range narrows the search by binary search), then the
   * sender and contract filters, which need the EVM's view of each remaining transaction.
   */
  async function list(req: MirrorRequest, q: Query, candidates: readonly LedgerTransaction[], shape: (tx: LedgerTransaction) => Promise<unknown>, contractId?: string) {
    const blockHash = lastValue(q, 'block.hash');
    const blockNumber = lastValue(q, 'block.number');
    const txIndex = lastValue(q, 'transaction.index');
    const from = lastValue(q, 'from');
    const times = q.filters.get('timestamp');
    const block =
      blockHash !== undefined ? view.blockByHash(blockHash.replace(/^(0x)?/, '0x'))
      : blockNumber !== undefined ? view.blockByNumber(Number(BigInt(blockNumber)))
      : undefined;
    // The sender by any name: entity id, EVM address or long-zero address, compared as the account it names.
    const sender = from === undefined ? undefined : (lookupEntity(view, from)?.evmAddress ?? evmAddress(from) ?? '');
    const byTime = (tx: LedgerTransaction) => timestampNanos(tx.consensusTimestamp);
    const timeMatches = matcher(times, timestampNanos);

    let txs = within(candidates, byTime, times, timestampNanos);
    if (blockHash !== undefined || blockNumber !== undefined) {
      txs = block ? within(txs, byTime, [{ op: 'gte', value: block.timestampFrom }, { op: 'lte', value: block.timestampTo }], timestampNanos) : [];
    }
    let keep = (tx: LedgerTransaction) =>
      listed(tx) &&
      (block === undefined || tx.blockNumber === block.number) &&
      (txIndex === undefined || records.evmTransactionIndex(tx) === Number(txIndex)) &&
      timeMatches(byTime(tx));
    if (contractId !== undefined || sender !== undefined) {
      // A synthetic row is filed under no contract here (until v0.164). How v0.160's synthetic query reads `from` was
      // not checked against its source: the filter matches the payer, the sender the row shows.
      const parties = (tx: LedgerTransaction) => (tx.ethHash ? records.record(tx) : { contractId: null, from: syntheticSender(view, tx) });
      const built = await Promise.all(txs.filter(keep).map(async (tx) => ({ tx, ...(await parties(tx)) })));
      const accepted = new Set(
        built.filter((r) => (contractId === undefined || r.contractId === contractId) && (sender === undefined || r.from === sender)).map((r) => r.tx),
      );
      keep = (tx) => accepted.has(tx);
    }
    const { rows, full } = page(txs, q, keep);
    const results = await Promise.all(rows.map(shape));
    const last = rows.at(-1);
    return {
      results,
      links: {
        next: full && last ? nextLink(req.path, q, [['timestamp', q.order === 'asc' ? 'gt' : 'lt', last.consensusTimestamp]]) : null,
      },
    };
  }

  /** A single result: the listing's fields with the logs and the storage the transaction touched. */
  async function single(record: EthRecord, tinybar: boolean) {
    return { ...detailed(record, tinybar), logs: record.logs, state_changes: await records.stateChanges(record) };
  }

  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/results$/,
      handle(req) {
        const q = parseQuery(req.search, LIST_RULES, { order: 'desc' });
        const tinybar = inTinybar(q);
        // HTS transfers made through HAPI are listed too, as synthetic rows (syntheticResults.ts).
        const shape = async (tx: LedgerTransaction) => (tx.ethHash ? detailed(await records.record(tx), tinybar) : syntheticResult(view, tx, records.evmTransactionIndex(tx), tinybar));
        return list(req, q, records.listedTransactions(), shape);
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/results\/([^/]+)$/,
      async handle(req) {
        const q = parseQuery(req.search, { hbar: HBAR_RULE, nonce: { ops: EQ, value: /^\d{1,10}$/ } });
        const tinybar = inTinybar(q);
        const tx = ethTransactionByIdOrHash(view, req.params[0]);
        // Non-zero nonces name child transactions; the sandbox's (account creations and completions) have no contract result.
        if (!tx || Number(lastValue(q, 'nonce') ?? 0) !== 0) throw notFound();
        return single(await records.record(tx), tinybar);
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/([^/]+)\/results$/,
      handle(req) {
        const q = parseQuery(req.search, LIST_RULES, { order: 'desc' });
        inTinybar(q);
        // The real node lists a contract's results without the Ethereum transaction (`amount` stays in tinybar), and
        // an unknown contract as one without results.
        const contract = findContract(view, req.params[0]);
        return contract ? list(req, q, records.ethereumTransactions(), async (tx) => (await records.record(tx)).base, contract.id) : EMPTY_RESULTS;
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/([^/]+)\/results\/([^/]+)$/,
      async handle(req) {
        const tinybar = inTinybar(parseQuery(req.search, { hbar: HBAR_RULE }));
        // An entity id or long-zero address is the id itself, contract or not (rest ContractService
        // .computeContractIdFromString): a call to an account without code is filed under that account.
        const contractId = contractIdOf(view, req.params[0]);
        const ts = req.params[1];
        if (!TIMESTAMP_PARAM.test(ts)) throw invalidParameter('timestamp');
        const nanos = timestampNanos(ts);
        const tx = records.ethereumTransactions().find((t) => timestampNanos(t.consensusTimestamp) === nanos);
        const record = tx && (await records.record(tx));
        if (!record || contractId === undefined || record.contractId !== contractId) throw notFound();
        return single(record, tinybar);
      },
    },
  ];
}
