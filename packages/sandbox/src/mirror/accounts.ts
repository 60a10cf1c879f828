/** `/api/v1/accounts/{idOrAliasOrEvmAddress}`: an account's state and, unless `transactions=false`, its transactions. */
import type { LedgerAccount, LedgerView } from '../ledger/view.js';
import { tokenBalancesOf } from './accountTokens.js';
import { base32Encode, requireAccount } from './entities.js';
import type { Route } from './http.js';
import { EQ, VALUE, lastValue, parseQuery } from './query.js';
import { MirrorError, notFound } from './errors.js';
import { timestampNanos } from './format.js';
import { balanceAt, delegationAt, nonceAt, snapshotFor, timestampRange } from './state.js';
import { TIMESTAMP_RULE, TRANSACTION_TYPE_RULE, involves, transactionPage } from './transactions.js';

/** The ledger's default auto-renew period, 90 days. */
export const AUTO_RENEW_SECONDS = 7_776_000;

function keyBody(account: LedgerAccount) {
  if (account.publicKey) return { _type: 'ECDSA_SECP256K1', key: account.publicKey.replace(/^0x/, '') };
  if (account.ed25519PublicKey) return { _type: 'ED25519', key: account.ed25519PublicKey.replace(/^0x/, '') };
  return null;
}

export function accountRoutes(view: LedgerView): Route[] {
  const rules = {
    timestamp: TIMESTAMP_RULE,
    transactiontype: TRANSACTION_TYPE_RULE,
    transactions: { ops: EQ, value: VALUE.boolean },
  };
  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/accounts\/([^/]+)$/,
      async handle(req) {
        const q = parseQuery(req.search, rules, { order: 'desc' });
        const account = requireAccount(view, req.params[0]);
        // As of a time range the account did not exist in, or an empty range, the real node has no state: 404.
        const { earliest, latest } = timestampRange(q.filters.get('timestamp'));
        if (earliest !== undefined && latest !== undefined && earliest > latest) throw new MirrorError(404, 'Timestamp range is empty');
        if (latest !== undefined && latest < timestampNanos(account.createdTimestamp)) throw notFound();
        const snapshot = snapshotFor(view, q.filters.get('timestamp'));
        const [balance, nonce, delegation] = snapshot
          ? await Promise.all([balanceAt(view, account, snapshot), nonceAt(view, account, snapshot), delegationAt(view, account, snapshot)])
          : [0, 0, null];
        const listed =
          lastValue(q, 'transactions') === 'false'
            ? { transactions: [], links: { next: null } }
            : transactionPage(req.path, view.transactions(), q, (tx) => involves(tx, account.id));
        return {
          account: account.id,
          // A key alias (HIP-32) in base32; a hollow account's EVM-address alias shows as its evm_address only.
          alias: account.alias && account.alias.length !== 42 ? base32Encode(Buffer.from(account.alias.slice(2), 'hex')) : null,
          auto_renew_period: AUTO_RENEW_SECONDS,
          // Token balances are today's: the sandbox keeps no token history.
          balance: { balance, timestamp: snapshot?.timestamp ?? null, tokens: tokenBalancesOf(view, account.id) },
          created_timestamp: account.createdTimestamp,
          decline_reward: false,
          delegation_address: delegation,
          deleted: false,
          ethereum_nonce: nonce,
          evm_address: account.evmAddress,
          expiry_timestamp: null,
          key: keyBody(account),
          max_automatic_token_associations: 0,
          memo: '',
          pending_reward: 0,
          receiver_sig_required: false,
          staked_account_id: null,
          staked_node_id: null,
          stake_period_start: null,
          ...listed,
        };
      },
    },
  ];
}
