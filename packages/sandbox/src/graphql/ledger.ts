/**
 * The ledger's GraphQL stand-in: a Hasura-shaped schema over the sandbox ledger, like the hosted service that serves
 * the mirror node's tables. `transaction` and `record_file` (blocks) as queries and as live-query subscriptions that
 * push the new result when the ledger records a transaction or closes a block.
 *
 * Columns follow the mirror node's database (timestamps in nanoseconds, account ids as entity numbers, bytea as
 * `\x...`), except `name` and `result`, which are the mirror node's names rather than its integer codes.
 */
import { GraphQLObjectType, GraphQLSchema, type GraphQLFieldConfig } from 'graphql';
import type { LedgerBlock, LedgerTransaction, LedgerView } from '../ledger/view.js';
import { hasuraTable, listField, type Row, type Table, type TableArgs } from './hasuraTable.js';
import { liveQuery } from './liveQuery.js';
import { serveGraphql, type StandIn } from './server.js';

const transactionTable = hasuraTable('transaction', {
  consensus_timestamp: 'bigint',
  valid_start_ns: 'bigint',
  payer_account_id: 'bigint',
  charged_tx_fee: 'bigint',
  index: 'bigint',
  transaction_hash: 'String',
  name: 'String',
  result: 'String',
});

const recordFileTable = hasuraTable('record_file', {
  index: 'bigint',
  consensus_start: 'bigint',
  consensus_end: 'bigint',
  count: 'bigint',
  gas_used: 'bigint',
  hash: 'String',
  prev_hash: 'String',
  name: 'String',
});

/** `"1700000000.000000123"` -> 1700000000000000123n */
export function timestampToNanos(ts: string): bigint {
  const [seconds, nanos = '0'] = ts.split('.');
  return BigInt(seconds) * 1_000_000_000n + BigInt(nanos.padEnd(9, '0').slice(0, 9));
}

const entityNum = (id: string) => BigInt(id.split('.').pop() ?? '0');
const bytea = (hex: string) => `\\x${hex.replace(/^0x/, '')}`;

function transactionRow(tx: LedgerTransaction): Row {
  const [, validSeconds = '0', validNanos = '0'] = tx.transactionId.split('-');
  return {
    consensus_timestamp: timestampToNanos(tx.consensusTimestamp),
    valid_start_ns: timestampToNanos(`${validSeconds}.${validNanos.padStart(9, '0')}`),
    payer_account_id: entityNum(tx.payerAccountId),
    charged_tx_fee: BigInt(tx.chargedTxFeeTinybar),
    index: BigInt(tx.index),
    transaction_hash: bytea(tx.hash),
    name: tx.name,
    result: tx.result,
  };
}

function recordFileRow(block: LedgerBlock): Row {
  return {
    index: BigInt(block.number),
    consensus_start: timestampToNanos(block.timestampFrom),
    consensus_end: timestampToNanos(block.timestampTo),
    count: BigInt(block.count),
    gas_used: BigInt(block.gasUsed),
    hash: block.hash.replace(/^0x/, ''),
    prev_hash: block.previousHash.replace(/^0x/, ''),
    name: block.name,
  };
}

export function ledgerSchema(view: LedgerView): GraphQLSchema {
  const transactions = () => view.transactions().map(transactionRow);
  const recordFiles = () => view.blocks().map(recordFileRow);
  const live = (table: Table, rows: () => readonly Row[]): GraphQLFieldConfig<unknown, unknown, TableArgs> => ({
    ...listField(table, rows),
    subscribe: (_src, args) => liveQuery(view, ['transaction', 'block'], () => table.select(rows(), args)),
    resolve: (payload) => payload,
  });
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'query_root',
      fields: { transaction: listField(transactionTable, transactions), record_file: listField(recordFileTable, recordFiles) },
    }),
    subscription: new GraphQLObjectType({
      name: 'subscription_root',
      fields: { transaction: live(transactionTable, transactions), record_file: live(recordFileTable, recordFiles) },
    }),
  });
}

/** Serves the ledger GraphQL on `/v1/graphql`; `url` is the full endpoint, WebSocket subscriptions on the same URL. */
export function startLedgerGraphql(view: LedgerView, opts: { host?: string; port?: number } = {}): Promise<StandIn> {
  return serveGraphql(ledgerSchema(view), '/v1/graphql', opts);
}
