/**
 * geth's `prestateTracer` result (no diff mode, which the official relay does not offer either): for each account a
 * transaction's calls touched, `{balance, nonce, code, storage}` before it ran, keyed by EVM address.
 *
 * Built as the official relay builds it (its `DebugImpl.prestateTracer`): the accounts are the callers and recipients
 * of the contract actions (`/contracts/results/{hash}/actions`; with `onlyTopCall`, of the transaction's own call
 * only), each looked up as the action's `caller_type` / `recipient_type` says (`/contracts/{id}` or `/accounts/{id}`),
 * every field always present. Where it differs, geth's meaning wins:
 * - balances are in weibar, as eth_getBalance answers them (the official relay sends tinybar), and are read as of just
 *   before the transaction (`timestamp=lt:`), not as of it;
 * - storage is the slots the transaction touched with the values it read (the contract result's `state_changes`),
 *   as geth reports it, rather than the contract's whole storage;
 * - a contract the transaction created is listed empty, as geth lists it (the official relay leaves it out).
 */
import { tinybarToWeibar, toQuantity } from './convert.js';
import type { ContractResult, LedgerReads } from './reads.js';
import type { StateChange } from './records.js';
import { contractActions, type ContractAction } from './trace.js';

export interface AccountPrestate {
  balance: string;
  nonce: number;
  code: string;
  storage: Record<string, string>;
}

type Kind = 'CONTRACT' | 'ACCOUNT';

/** Each account an action names, with what the mirror node says it is; a later mention does not change the kind. */
function touched(actions: ContractAction[]): Map<string, Kind> {
  const found = new Map<string, Kind>();
  const add = (address: string | null, type: string | null) => {
    if (!address || found.has(address.toLowerCase())) return;
    found.set(address.toLowerCase(), type === 'CONTRACT' ? 'CONTRACT' : 'ACCOUNT');
  };
  for (const a of actions) {
    add(a.from, a.caller_type);
    add(a.to, a.recipient_type);
  }
  return found;
}

async function contractPrestate(reads: LedgerReads, address: string, result: ContractResult, changes: StateChange[]): Promise<[string, AccountPrestate] | undefined> {
  const contract = await reads.mirror.get<{ contract_id: string; evm_address: string | null; nonce?: number | null; runtime_bytecode: string | null }>(
    `/api/v1/contracts/${address}`,
  );
  if (!contract) return undefined;
  const evmAddress = (contract.evm_address ?? address).toLowerCase();
  // A contract this transaction created had nothing before it: geth lists it empty (the official relay leaves it out).
  if ((result.created_contract_ids ?? []).includes(contract.contract_id)) return [evmAddress, { balance: '0x0', nonce: 0, code: '0x', storage: {} }];
  const balances = await reads.mirror.get<{ balances: Array<{ balance: number | bigint }> }>(
    `/api/v1/balances?account.id=${contract.contract_id}&timestamp=lt:${result.timestamp}`,
    { exactNumbers: true },
  );
  const storage = Object.fromEntries(
    changes.filter((c) => c.contract_id === contract.contract_id || c.address.toLowerCase() === evmAddress).map((c) => [c.slot, c.value_read]),
  );
  return [
    evmAddress,
    {
      balance: toQuantity(tinybarToWeibar(balances?.balances[0]?.balance ?? 0)),
      nonce: contract.nonce ?? 0,
      code: contract.runtime_bytecode ?? '0x',
      storage,
    },
  ];
}

async function accountPrestate(reads: LedgerReads, address: string, before: string): Promise<[string, AccountPrestate] | undefined> {
  const account = await reads.mirror.get<{ evm_address: string | null; ethereum_nonce: number | null; balance: { balance: number | bigint } | null }>(
    `/api/v1/accounts/${address}?transactions=false&timestamp=lt:${before}`,
    { exactNumbers: true },
  );
  if (!account) return undefined;
  return [
    (account.evm_address ?? address).toLowerCase(),
    { balance: toQuantity(tinybarToWeibar(account.balance?.balance ?? 0)), nonce: account.ethereum_nonce ?? 0, code: '0x', storage: {} },
  ];
}

export async function prestateTrace(reads: LedgerReads, result: ContractResult, opts: { onlyTopCall: boolean }): Promise<Record<string, AccountPrestate>> {
  const actions = await contractActions(reads, result.hash);
  const accounts = touched(opts.onlyTopCall ? actions.filter((a) => a.call_depth === 0) : actions);
  if (accounts.size === 0) return {};
  // Listings (a block's results) carry no state changes: the transaction's own result (cached) does.
  const changes = (result.state_changes ?? (await reads.contractResult(result.hash))?.state_changes) ?? [];
  const entries = await Promise.all(
    [...accounts].map(([address, kind]) =>
      kind === 'CONTRACT' ? contractPrestate(reads, address, result, changes) : accountPrestate(reads, address, result.timestamp),
    ),
  );
  return Object.fromEntries(entries.filter((e) => e !== undefined));
}
