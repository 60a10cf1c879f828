/** `/api/v1/transactions`, and the transaction shape `/accounts/{id}` embeds. */
import type { LedgerTransaction, LedgerView } from '../ledger/view.js';
import { canonicalTransactionId, entityNum, hexToBase64, timestampNanos, validStartOf } from './format.js';
import { badRequest, notFound } from './errors.js';
import type { Route } from './http.js';
import { ALL_OPS, EQ, VALUE, lastValue, matcher, nextLink, page, parseQuery, within, type Query } from './query.js';

/** The mirror node's TransactionTypes enum; it reads the parameter case-insensitively. */
const TRANSACTION_TYPE = new RegExp(
  `^(${[
    'ATOMICBATCH|CONSENSUSCREATETOPIC|CONSENSUSDELETETOPIC|CONSENSUSSUBMITMESSAGE|CONSENSUSUPDATETOPIC|CONTRACTCALL',
    'CONTRACTCREATEINSTANCE|CONTRACTDELETEINSTANCE|CONTRACTUPDATEINSTANCE|CRYPTOADDLIVEHASH|CRYPTOAPPROVEALLOWANCE',
    'CRYPTOCREATEACCOUNT|CRYPTODELETE|CRYPTODELETEALLOWANCE|CRYPTODELETELIVEHASH|CRYPTOTRANSFER|CRYPTOUPDATEACCOUNT',
    'ETHEREUMTRANSACTION|FILEAPPEND|FILECREATE|FILEDELETE|FILEUPDATE|FREEZE|NODECREATE|NODEDELETE|NODESTAKEUPDATE',
    'NODEUPDATE|SCHEDULECREATE|SCHEDULEDELETE|SCHEDULESIGN|SYSTEMDELETE|SYSTEMUNDELETE|TOKENAIRDROP|TOKENASSOCIATE',
    'TOKENBURN|TOKENCANCELAIRDROP|TOKENCLAIMAIRDROP|TOKENCREATION|TOKENDELETION|TOKENDISSOCIATE|TOKENFEESCHEDULEUPDATE',
    'TOKENFREEZE|TOKENGRANTKYC|TOKENMINT|TOKENPAUSE|TOKENREJECT|TOKENREVOKEKYC|TOKENUNFREEZE|TOKENUNPAUSE|TOKENUPDATE',
    'TOKENUPDATENFTS|TOKENWIPE|UNCHECKEDSUBMIT|UTILPRNG',
  ].join('|')})$`,
  'i',
);
/** The node every sandbox transaction is submitted to. */
const NODE_ACCOUNT = '0.0.3';

export const TIMESTAMP_RULE = { ops: ALL_OPS, value: VALUE.timestamp };
export const TRANSACTION_TYPE_RULE = { ops: EQ, value: TRANSACTION_TYPE };

function transactionBody(tx: LedgerTransaction) {
  const transactionId = canonicalTransactionId(tx.transactionId) ?? tx.transactionId;
  return {
    batch_key: null,
    bytes: null,
    charged_tx_fee: tx.chargedTxFeeTinybar,
    consensus_timestamp: tx.consensusTimestamp,
    entity_id: tx.contractId ?? tx.fileId ?? tx.entityId ?? null,
    max_custom_fees: [],
    memo_base64: tx.memo ? Buffer.from(tx.memo).toString('base64') : null,
    name: tx.name,
    nft_transfers: (tx.nftTransfers ?? []).map((n) => ({
      is_approval: n.isApproval,
      receiver_account_id: n.receiver,
      sender_account_id: n.sender,
      serial_number: n.serial,
      token_id: n.token,
    })),
    node: NODE_ACCOUNT,
    nonce: tx.nonce ?? 0,
    parent_consensus_timestamp: null,
    result: tx.result,
    scheduled: false,
    staking_reward_transfers: [],
    token_transfers: (tx.tokenTransfers ?? []).map((t) => ({ token_id: t.token, account: t.account, amount: t.amount, is_approval: t.isApproval === true })),
    transaction_hash: hexToBase64(tx.hash),
    transaction_id: transactionId,
    transfers: tx.transfers.map((t) => ({ account: t.account, amount: t.amount, is_approval: false })),
    valid_start_timestamp: validStartOf(transactionId),
  };
}

const LEDGER_HASH = /^(0x)?[0-9A-Fa-f]{96}$/;
const LEDGER_HASH_BASE64URL = /^[A-Za-z0-9_-]{64}$/;

/**
 * `/transactions/{transactionIdOrHash}`: every transaction with that id (the user's and its children, which share
 * it), or the one with that 48-byte hash in hex or base64url, in consensus order; a path that is neither is refused
 * in the real node's words (rest/transactions.js getTransactionsByIdOrHash, transactionId.js fromString).
 */
function transactionsByIdOrHash(view: LedgerView, idOrHash: string): LedgerTransaction[] {
  const hash = LEDGER_HASH.test(idOrHash)
    ? `0x${idOrHash.replace(/^0x/, '').toLowerCase()}`
    : LEDGER_HASH_BASE64URL.test(idOrHash)
      ? `0x${Buffer.from(idOrHash, 'base64url').toString('hex')}`
      : undefined;
  if (hash) return view.transactions().filter((tx) => tx.hash === hash);
  const transactionId = canonicalTransactionId(idOrHash);
  if (!transactionId) throw badRequest('Invalid Transaction id. Please use "shard.realm.num-sss-nnn" format where sss are seconds and nnn are nanoseconds');
  return view.transactions().filter((tx) => tx.transactionId === transactionId);
}

/** Whether the account paid for the transaction or had hbar moved by it. */
export function involves(tx: LedgerTransaction, accountId: string): boolean {
  return tx.payerAccountId === accountId || tx.transfers.some((t) => t.account === accountId);
}

/**
 * One page of transactions matching the shared filters (timestamp, transaction type) and `keep`, with the real
 * node's `links.next` (paging on the consensus timestamp).
 */
export function transactionPage(path: string, txs: readonly LedgerTransaction[], q: Query, keep: (tx: LedgerTransaction) => boolean) {
  const type = lastValue(q, 'transactiontype')?.toUpperCase();
  const times = q.filters.get('timestamp');
  const timeMatches = matcher(times, timestampNanos);
  const { rows, full } = page(
    within(txs, (tx) => timestampNanos(tx.consensusTimestamp), times, timestampNanos),
    q,
    (tx) => (type === undefined || tx.name === type) && timeMatches(timestampNanos(tx.consensusTimestamp)) && keep(tx),
  );
  const last = rows.at(-1);
  return {
    transactions: rows.map(transactionBody),
    links: { next: full && last ? nextLink(path, q, [['timestamp', q.order === 'asc' ? 'gt' : 'lt', last.consensusTimestamp]]) : null },
  };
}

export function transactionRoutes(view: LedgerView): Route[] {
  const rules = {
    'account.id': { ops: ALL_OPS, value: VALUE.entityId },
    timestamp: TIMESTAMP_RULE,
    transactiontype: TRANSACTION_TYPE_RULE,
    result: { ops: EQ, value: /^(success|fail)$/ },
    type: { ops: EQ, value: /^(credit|debit)$/ },
  };
  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/transactions\/([^/]+)$/,
      handle(req) {
        const q = parseQuery(req.search, { nonce: { ops: EQ, value: /^\d{1,10}$/ }, scheduled: { ops: EQ, value: VALUE.boolean } });
        const nonce = lastValue(q, 'nonce');
        // The sandbox schedules nothing: every transaction is an unscheduled one.
        const scheduled = lastValue(q, 'scheduled');
        const transactions = transactionsByIdOrHash(view, req.params[0]).filter(
          (tx) => (nonce === undefined || (tx.nonce ?? 0) === Number(nonce)) && (scheduled === undefined || scheduled === 'false'),
        );
        if (transactions.length === 0) throw notFound();
        return { transactions: transactions.map(transactionBody) };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/transactions$/,
      handle(req) {
        const q = parseQuery(req.search, rules, { order: 'desc' });
        const accountFilter = q.filters.get('account.id');
        const result = lastValue(q, 'result');
        const direction = lastValue(q, 'type');
        // The accounts a transaction touches, as entity numbers, for the account.id filter.
        const accountMatches = matcher(accountFilter, (v) => BigInt(entityNum(v) ?? -1));
        const selected = (account: string) => accountMatches(BigInt(entityNum(account) ?? -1));
        return transactionPage(req.path, view.transactions(), q, (tx) => {
          if (result !== undefined && (tx.result === 'SUCCESS') !== (result === 'success')) return false;
          if (accountFilter && !selected(tx.payerAccountId) && !tx.transfers.some((t) => selected(t.account))) return false;
          if (direction === undefined) return true;
          const moves = tx.transfers.filter((t) => !accountFilter || selected(t.account));
          return moves.some((t) => (direction === 'credit' ? t.amount > 0 : t.amount < 0));
        });
      },
    },
  ];
}
