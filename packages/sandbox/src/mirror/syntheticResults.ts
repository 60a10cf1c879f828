/**
 * The synthetic contract results a mirror node of v0.160 merges into `/contracts/results`: one row per native
 * transaction with synthetic Transfer logs, so that a block's listing counts the token transfers its logs show.
 *
 * hiero-mirror-node PR #13503 (issue #12883) added the merge to rest/service/contractService.js behind
 * `hiero.mirror.rest.query.syntheticContractResults` (default true); v0.157 shipped it switched off (PR #13765) for
 * rows sent from `null` (issue #13766), which PR #13774 fixed by naming the payer; v0.158 on list them. Until v0.162
 * only the fungible Transfer log (TransferContractLog) was marked `synthetic`, so a native transaction that moved only
 * NFTs has no row (issue #14034). `/contracts/{id}/results` and the single lookups
 * (`/contracts/results/{transactionIdOrHash}`, `/contracts/{id}/results/{timestamp}`) show none before v0.164 (PRs
 * #14290, #14305), nor do they here.
 *
 * Field values follow the row issue #13766 quotes from a real node (v0.157's candidates), with `from` the payer's
 * long-zero address and `access_list` an empty list as PR #14305's spec tests show the same row
 * (rest/__tests__/specs/contracts/results/{id}/synthetic-nft-wildcard-excluded.json; the OpenAPI document has no
 * null list either), and v0.157's fallbacks for results without an Ethereum transaction: `type` 0, `chain_id` the
 * network's, `gas_price` the fee schedule's gas price at that time.
 */
import { entityNum, longZeroAddress } from '../ledger/ids.js';
import type { LedgerTransaction, LedgerView } from '../ledger/view.js';
import { WEIBAR_PER_TINYBAR, hexQuantity } from './format.js';
import { syntheticTransferLogs, type SyntheticLog } from './syntheticLogs.js';

/** A fungible move's log (data is the amount); an NFT's carries its serial as a fourth topic instead. */
const marked = (log: SyntheticLog) => log.topics.length === 3;

/** The log a transaction's synthetic row is made from: its first one marked synthetic, if any. */
function firstMarkedLog(view: LedgerView, tx: LedgerTransaction): SyntheticLog | undefined {
  return tx.ethHash ? undefined : syntheticTransferLogs(view, tx).find(marked);
}

/** Whether `/contracts/results` lists a row for this native transaction. */
export function hasSyntheticResult(view: LedgerView, tx: LedgerTransaction): boolean {
  return firstMarkedLog(view, tx) !== undefined;
}

/** The payer's EVM address, which the row shows as its sender and the `from` filter compares. */
export function syntheticSender(view: LedgerView, tx: LedgerTransaction): string | null {
  return view.account(tx.payerAccountId)?.evmAddress.toLowerCase() ?? null;
}

/**
 * The row as `/contracts/results` lists it; the monetary field in tinybar or (`hbar=false`) weibar. `transactionIndex`
 * is the transaction's EVM index in its block, as the records number it.
 */
export function syntheticResult(view: LedgerView, tx: LedgerTransaction, transactionIndex: number | null, tinybar: boolean): Record<string, unknown> {
  const log = firstMarkedLog(view, tx)!;
  const block = view.blockByNumber(tx.blockNumber);
  const gasPrice = BigInt(view.gasPriceTinybar());
  return {
    access_list: [],
    address: log.address,
    amount: null,
    block_gas_used: block?.gasUsed ?? null,
    block_hash: block?.hash ?? null,
    block_number: block?.number ?? null,
    bloom: '0x',
    call_result: '0x',
    chain_id: hexQuantity(BigInt(view.chainId)),
    contract_id: log.contract_id,
    created_contract_ids: [],
    error_message: null,
    failed_initcode: null,
    from: longZeroAddress(entityNum(tx.payerAccountId)!),
    function_parameters: '0x',
    gas_consumed: null,
    gas_limit: 0,
    gas_price: hexQuantity(tinybar ? gasPrice : gasPrice * WEIBAR_PER_TINYBAR),
    gas_used: null,
    // The first 32 bytes of the ledger's hash, as the transaction's synthetic logs carry it.
    hash: tx.hash.slice(0, 66),
    max_fee_per_gas: null,
    max_priority_fee_per_gas: null,
    nonce: null,
    r: null,
    result: tx.result,
    s: null,
    status: '0x1',
    timestamp: tx.consensusTimestamp,
    to: log.address,
    transaction_index: transactionIndex,
    type: 0,
    v: null,
  };
}
