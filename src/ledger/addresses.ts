/**
 * EVM addresses of ledger entities. The mirror node names a contract result's payer and contract by entity, as
 * long-zero addresses (`0x00…03ee`), while Ethereum tools need the address the sender signed with (the account's
 * ECDSA alias) and the contract's EVM address. Each long-zero address is looked up once through the entity's
 * `evm_address` and kept: an entity's EVM address never changes.
 */
import { ZERO_ADDRESS } from './convert.js';
import type { LedgerReads } from './reads.js';

/** `0x` + 12 zero bytes + an 8-byte entity number: shard and realm 0, the only ones the ledger's EVM addresses use. */
const LONG_ZERO = /^0x0{24}[0-9a-f]{16}$/;

/** Where an entity is looked for, in order: a sender is an account, a recipient usually a contract. */
export type EntityKind = 'accounts' | 'contracts';
export const SENDER: readonly EntityKind[] = ['accounts', 'contracts'];
export const RECIPIENT: readonly EntityKind[] = ['contracts', 'accounts'];

export function isLongZero(address: string): boolean {
  return LONG_ZERO.test(address.toLowerCase());
}

/**
 * The EVM address of an entity named by its long-zero address; any other address already is one. An entity without
 * an EVM address (an Ed25519 account, a token) keeps its long-zero address. Kept for good, in-flight lookups shared.
 */
export function evmAddressOf(reads: LedgerReads, address: string | null | undefined, order: readonly EntityKind[] = RECIPIENT): Promise<string | undefined> {
  if (!address) return Promise.resolve(undefined);
  const lower = address.toLowerCase();
  if (!LONG_ZERO.test(lower)) return Promise.resolve(lower);
  return reads.cache.final(`evm:${lower}`, async () => {
    for (const kind of order) {
      const query = kind === 'accounts' ? '?transactions=false' : '';
      const entity = await reads.mirror.get<{ evm_address?: string | null }>(`/api/v1/${kind}/${lower}${query}`);
      if (entity) return entity.evm_address ? entity.evm_address.toLowerCase() : lower;
    }
    return lower;
  });
}

/** A transaction's sender and recipient as Ethereum shows them. */
export interface Parties {
  from: string;
  to: string | null;
}

/**
 * The sender's and recipient's EVM addresses of a contract result (the recipient before any creation rule). Only a
 * synthetic row, which callers leave out, has no sender; it would be shown from the zero address.
 */
export async function partiesOf(reads: LedgerReads, r: { from: string | null; to: string | null; address: string | null }): Promise<Parties> {
  const [from, to] = await Promise.all([evmAddressOf(reads, r.from, SENDER), evmAddressOf(reads, r.to ?? r.address, RECIPIENT)]);
  return { from: from ?? ZERO_ADDRESS, to: to ?? null };
}

/** The long-zero address of entity `0.0.N` (or `N`). */
export function longZeroOf(entityId: string): string {
  const num = BigInt(entityId.split('.').at(-1)!);
  return `0x${num.toString(16).padStart(40, '0')}`;
}

/**
 * Every address the logs of the contract or token at `address` can carry: a contract's EVM address and its long-zero
 * one (the mirror node finds a contract by either), a token's long-zero address. Undefined when neither exists, which
 * the official relay refuses for a `logs` subscription (its `validateSubscribeEthLogsParams` asks the mirror node for
 * a contract, then a token). Kept once found (an entity's addresses never change), so many subscribers to one
 * contract cost one lookup.
 */
export function logAddressesOf(reads: LedgerReads, address: string): Promise<string[] | undefined> {
  const lower = address.toLowerCase();
  return reads.cache.final(`logaddr:${lower}`, () => lookUpLogAddresses(reads, lower));
}

async function lookUpLogAddresses(reads: LedgerReads, lower: string): Promise<string[] | undefined> {
  const contract = await reads.mirror.get<{ contract_id: string; evm_address?: string | null }>(`/api/v1/contracts/${lower}`);
  if (contract) return [...new Set([lower, longZeroOf(contract.contract_id), ...(contract.evm_address ? [contract.evm_address.toLowerCase()] : [])])];
  if (!isLongZero(lower)) return undefined;
  const token = await reads.mirror.get<{ token_id: string }>(`/api/v1/tokens/0.0.${BigInt(lower)}`);
  return token ? [lower] : undefined;
}
