/**
 * Finding accounts and contracts by the names the mirror node accepts: entity ids (`0.0.N`, `0.N`, `N`),
 * EVM addresses (with or without `0x`, optionally `0.0.`-prefixed) and account aliases (base32, no padding).
 */
import { invalidParameter, notFound } from './errors.js';
import type { LedgerAccount, LedgerView } from '../ledger/view.js';
import { entityNum, evmAddress } from './format.js';
import { entityId, longZeroNum } from '../ledger/ids.js';

const ACCOUNT_PARAM = /^(\d{1,10}\.){0,2}(\d{1,10}|(0x)?[A-Fa-f0-9]{40}|(?:[A-Z2-7]{8})*(?:[A-Z2-7]{2}|[A-Z2-7]{4,5}|[A-Z2-7]{7,8}))$/;
const CONTRACT_PARAM = /^(\d{1,10}\.){0,2}(\d{1,10}|(0x)?[A-Fa-f0-9]{40})$/;
/** A protobuf `Key` holding a compressed secp256k1 key: field 6 (ECDSASecp256k1), 33 bytes. */
const ECDSA_KEY_PREFIX = '3a21';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding, the mirror node's spelling of an alias. */
export function base32Encode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(value >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function base32Decode(text: string): Buffer {
  const alphabet = BASE32;
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    value = (value << 5) | alphabet.indexOf(ch);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >> bits) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

function byAlias(view: LedgerView, alias: string): LedgerAccount | undefined {
  const hex = base32Decode(alias).toString('hex');
  if (hex.length === 40) return view.account(`0x${hex}`);
  const aliased = view.accounts().find((a) => a.alias === `0x${hex}`);
  if (aliased) return aliased;
  if (hex.startsWith(ECDSA_KEY_PREFIX) && hex.length === 70) {
    const key = `0x${hex.slice(4)}`;
    return view.accounts().find((a) => a.publicKey?.toLowerCase() === key);
  }
  return undefined;
}

/** An account or contract by any accepted name; undefined when no such entity exists. */
export function lookupEntity(view: LedgerView, name: string): LedgerAccount | undefined {
  const num = entityNum(name);
  if (num !== undefined) return view.account(`0.0.${num}`);
  const address = evmAddress(name);
  if (address) return view.account(address);
  const alias = name.split('.').at(-1) as string;
  return byAlias(view, alias);
}

/**
 * The entity an EVM address names in contract results and logs: an account or contract, or a token (whose
 * long-zero address runs its ERC facade, so its logs carry the token's id as `contract_id`).
 */
export function entityIdAt(view: LedgerView, address: string): string | null {
  const account = view.account(address.toLowerCase());
  if (account) return account.id;
  const num = longZeroNum(address);
  return num === undefined ? null : (view.tokenState().token(entityId(num))?.id ?? null);
}

/** For `{idOrAliasOrEvmAddress}`: 400 when malformed, 404 when unknown. */
export function requireAccount(view: LedgerView, name: string): LedgerAccount {
  if (!ACCOUNT_PARAM.test(name)) throw invalidParameter('idOrAliasOrEvmAddress');
  const account = lookupEntity(view, name);
  if (!account) throw notFound();
  return account;
}

/** For `{contractIdOrAddress}`: 400 when malformed, undefined when no contract has that name. */
export function findContract(view: LedgerView, name: string): LedgerAccount | undefined {
  if (!CONTRACT_PARAM.test(name)) throw invalidParameter('contractIdOrAddress');
  const contract = lookupEntity(view, name);
  return contract?.isContract ? contract : undefined;
}

/**
 * The entity a `{contractIdOrAddress}` names where the real node files rows by id: an entity id or a long-zero address
 * is taken as the id itself, with no lookup (rest ContractService.computeContractIdFromString), so a token's names
 * find what is filed under the token (its synthetic logs); another address names the contract that has it.
 */
export function contractIdOf(view: LedgerView, name: string): string | undefined {
  if (!CONTRACT_PARAM.test(name)) throw invalidParameter('contractIdOrAddress');
  const address = evmAddress(name);
  const num = address === undefined ? entityNum(name) : longZeroNum(address);
  return num === undefined ? findContract(view, name)?.id : entityId(num);
}

/** For `{contractIdOrAddress}` of a single entity: 400 when malformed, 404 when no contract has that name. */
export function requireContract(view: LedgerView, name: string): LedgerAccount {
  const contract = findContract(view, name);
  if (!contract) throw notFound();
  return contract;
}
