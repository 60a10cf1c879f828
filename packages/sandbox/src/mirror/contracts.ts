/** `/api/v1/contracts/{contractIdOrAddress}`: a contract entity with its init code and its code now. */
import { notFound } from './errors.js';
import type { LedgerAccount, LedgerView } from '../ledger/view.js';
import { AUTO_RENEW_SECONDS } from './accounts.js';
import { requireContract } from './entities.js';
import { timestampNanos } from './format.js';
import type { Route } from './http.js';
import { ALL_OPS, VALUE, parseQuery } from './query.js';
import type { EthRecords } from './records.js';
import { nonceAt } from './state.js';

export function contractRoutes(view: LedgerView, records: EthRecords): Route[] {
  /** The init code of the transaction that created the contract; null when another contract created it. */
  async function initcode(contract: LedgerAccount): Promise<string | null> {
    const candidates = records
      .ethereumTransactions()
      .filter((tx) => tx.contractId === contract.id || tx.consensusTimestamp === contract.createdTimestamp);
    for (const tx of candidates) {
      const { creation } = await records.record(tx);
      if (creation?.address === contract.evmAddress) return creation.initcode;
    }
    return null;
  }

  return [
    {
      method: 'GET',
      pattern: /^\/api\/v1\/contracts\/([^/]+)$/,
      async handle(req) {
        const q = parseQuery(req.search, { timestamp: { ops: ALL_OPS, value: VALUE.timestamp } });
        const contract = requireContract(view, req.params[0]);
        // Asked as of a time before its creation, the contract did not exist yet.
        const created = timestampNanos(contract.createdTimestamp);
        const asOf = (q.filters.get('timestamp') ?? []).filter((f) => f.op === 'eq' || f.op === 'lt' || f.op === 'lte');
        if (asOf.some((f) => created > timestampNanos(f.value) - (f.op === 'lt' ? 1n : 0n))) throw notFound();
        const [bytecode, runtime, nonce] = await Promise.all([
          initcode(contract),
          view.evm.request({ method: 'eth_getCode', params: [contract.evmAddress, 'latest'] }) as Promise<string>,
          nonceAt(view, contract, { timestamp: null, tag: 'latest' }),
        ]);
        return {
          admin_key: null,
          auto_renew_account: null,
          auto_renew_period: AUTO_RENEW_SECONDS,
          bytecode,
          contract_id: contract.id,
          created_timestamp: contract.createdTimestamp,
          deleted: false,
          evm_address: contract.evmAddress,
          expiration_timestamp: null,
          file_id: null,
          max_automatic_token_associations: 0,
          memo: '',
          nonce,
          obtainer_id: null,
          permanent_removal: null,
          proxy_account_id: null,
          runtime_bytecode: runtime,
          timestamp: { from: contract.createdTimestamp, to: null },
        };
      },
    },
  ];
}
