/**
 * Account aliases as the ledger resolves them in a CryptoTransfer, and the accounts it creates for unused ones:
 * - HIP-32: an alias that is a serialized protobuf `Key` (ED25519 or ECDSA secp256k1) auto-creates an account with
 *   that key, that alias, and (for ECDSA) the key's EVM address;
 * - HIP-583: a 20-byte EVM-address alias lazy-creates a hollow account: no key, alias and EVM address that address.
 *   A hollow account is completed when it pays for a transaction signed by the ECDSA key that address derives from
 *   (or sends its first EthereumTransaction): its key becomes that key.
 * The creation is recorded, as the network records it, as a preceding child of the transfer: a CRYPTOCREATEACCOUNT
 * with the parent's transaction id and nonce 1, 2, ..., the memo "auto-created account" or "lazy-created account"
 * (the services' AutoCreation memos), its receipt naming the new account, and no fee of its own: the network "squashes"
 * the creation fee into the transfer's record (the draft HIP "Itemized auto-creation fees" describes this).
 */
import { createHash } from 'node:crypto';
import { PublicKey } from '@hashgraph/sdk';
import { proto } from '@hashgraph/proto';
import { computeAddress } from 'ethers';
import { idOf } from './hapi.js';
import { longZeroAddress } from './ids.js';
import type { LedgerAccount, LedgerTransaction } from './view.js';

/** How an account not yet named by number travels in the chain's work: `alias:0x<alias bytes>`. */
const ALIAS_REF = 'alias:';

const AUTO_MEMO = 'auto-created account';
const LAZY_MEMO = 'lazy-created account';

type Alias = { kind: 'evm'; bytes: Buffer; address: string } | { kind: 'key'; bytes: Buffer; key: PublicKey; address?: string };

/** `0.0.<num>`, or an alias reference for an AccountID given by alias; undefined when it is neither. */
export function accountRef(id: proto.IAccountID | null | undefined): string | undefined {
  const byNum = idOf(id);
  if (byNum) return byNum;
  if (!id?.alias?.length || BigInt(String(id.shardNum ?? 0)) !== 0n || BigInt(String(id.realmNum ?? 0)) !== 0n) return undefined;
  return parseAlias(Buffer.from(id.alias)) ? `${ALIAS_REF}0x${Buffer.from(id.alias).toString('hex')}` : undefined;
}

export const isAliasRef = (ref: string) => ref.startsWith(ALIAS_REF);

/** An alias's meaning: 20 bytes are an EVM address (HIP-583), else a protobuf `Key` with one simple key (HIP-32). */
function parseAlias(bytes: Buffer): Alias | undefined {
  if (bytes.length === 20) return { kind: 'evm', bytes, address: `0x${bytes.toString('hex')}` };
  try {
    const key = proto.Key.decode(bytes);
    if (key.ed25519?.length === 32) return { kind: 'key', bytes, key: PublicKey.fromBytesED25519(key.ed25519) };
    if (key.ECDSASecp256k1?.length === 33) {
      const publicKey = PublicKey.fromBytesECDSA(key.ECDSASecp256k1);
      return { kind: 'key', bytes, key: publicKey, address: evmAddressOf(publicKey) };
    }
  } catch {
    // not a Key either
  }
  return undefined;
}

/** The EVM address an ECDSA key controls (the last 20 bytes of the keccak hash of the uncompressed key). */
export function evmAddressOf(key: PublicKey): string {
  return computeAddress(`0x${key.toStringRaw()}`).toLowerCase();
}

/** What the chain lends this module to look accounts up and create them. */
export interface AccountBook {
  account(idOrAddress: string): LedgerAccount | undefined;
  accounts(): readonly LedgerAccount[];
  register(a: { evmAddress?: string; key?: PublicKey; alias: string; created: string }): LedgerAccount;
}

/** The account an alias names, if one has it (an ECDSA key alias also finds the account at its EVM address). */
function aliased(book: Pick<AccountBook, 'account' | 'accounts'>, alias: Alias): LedgerAccount | undefined {
  const hex = `0x${alias.bytes.toString('hex')}`;
  return book.accounts().find((a) => a.alias === hex) ?? (alias.address ? book.account(alias.address) : undefined);
}

/** The account an existing alias names, for checks made before the transaction is handled (whoever must sign). */
export function resolveExisting(book: Pick<AccountBook, 'account' | 'accounts'>, ref: string): LedgerAccount | undefined {
  if (!isAliasRef(ref)) return book.account(ref);
  const alias = parseAlias(Buffer.from(ref.slice(ALIAS_REF.length + 2), 'hex'));
  return alias && aliased(book, alias);
}

/** A preceding child record, still to be placed in its block (its nonce, hash and timestamp come with its place). */
export type ChildRecord = Omit<LedgerTransaction, 'blockNumber' | 'index'>;

/** A synthetic transaction has no signed bytes of its own: a hash unique to the parent and the nonce stands in. */
export function childHash(parentHash: string, nonce: number): string {
  return `0x${createHash('sha384').update(`${parentHash}/${nonce}`).digest('hex')}`;
}

/**
 * Replaces every alias reference in a transfer's credits with an account id, creating the accounts of unused aliases
 * (debits must name existing accounts: the ledger answers INVALID_ACCOUNT_ID otherwise). Returns the children the
 * creations record, or the failure status.
 */
export function resolveAliases(
  book: AccountBook,
  moves: Array<{ account: string; amount: bigint }>,
  parent: { transactionId: string; payer: string },
  created: string,
): ChildRecord[] | string {
  const children: ChildRecord[] = [];
  for (const m of moves) {
    if (!isAliasRef(m.account)) continue;
    const alias = parseAlias(Buffer.from(m.account.slice(ALIAS_REF.length + 2), 'hex'));
    if (!alias) return 'INVALID_ALIAS_KEY';
    let account = aliased(book, alias);
    if (!account) {
      if (m.amount <= 0n) return 'INVALID_ACCOUNT_ID';
      const hex = `0x${alias.bytes.toString('hex')}`;
      account =
        alias.kind === 'evm'
          ? book.register({ evmAddress: alias.address, alias: hex, created })
          : book.register({ key: alias.key, evmAddress: alias.address, alias: hex, created });
      children.push(childRecord(parent, 'CRYPTOCREATEACCOUNT', alias.kind === 'evm' ? LAZY_MEMO : AUTO_MEMO, account.id));
    }
    m.account = account.id;
  }
  return children;
}

function childRecord(parent: { transactionId: string; payer: string }, name: string, memo: string, accountId: string): ChildRecord {
  return {
    consensusTimestamp: '',
    transactionId: parent.transactionId,
    payerAccountId: parent.payer,
    name,
    result: 'SUCCESS',
    chargedTxFeeTinybar: 0,
    transfers: [],
    entityId: accountId,
    nonce: 0,
    memo,
    hash: '',
  };
}

/**
 * The record of a hollow account's completion: a preceding child of the transaction that completed it, a synthetic
 * CryptoUpdate giving the account its key, successful even when its parent fails (the services'
 * HollowAccountFinalizationLogic).
 */
export function hollowCompletion(parent: { transactionId: string; payer: string }, accountId: string): ChildRecord {
  return childRecord(parent, 'CRYPTOUPDATEACCOUNT', '', accountId);
}

/**
 * Whether the account is hollow: an EVM address with no key yet, lazy-created by a transfer to its alias or by an
 * Ethereum transaction sending value to it.
 */
export function isHollow(account: LedgerAccount, key: PublicKey | undefined): boolean {
  return !key && !account.isContract && account.evmAddress !== longZeroAddress(account.num);
}

/**
 * The ECDSA key in a signature map that completes a hollow payer: a full 33-byte prefix whose EVM address is the
 * account's, with a valid signature over the body (HIP-583: the key comes from the signature map).
 */
export function completingKey(account: LedgerAccount, sigMap: proto.ISignatureMap | null | undefined, bodyBytes: Uint8Array): PublicKey | undefined {
  for (const pair of sigMap?.sigPair ?? []) {
    if (pair.pubKeyPrefix?.length !== 33 || !pair.ECDSASecp256k1?.length) continue;
    try {
      const key = PublicKey.fromBytesECDSA(pair.pubKeyPrefix);
      if (evmAddressOf(key) === account.evmAddress && key.verify(bodyBytes, pair.ECDSASecp256k1)) return key;
    } catch {
      // not a key
    }
  }
  return undefined;
}
