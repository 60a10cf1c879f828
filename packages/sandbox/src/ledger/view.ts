/**
 * The read side of the ledger sandbox: what the consensus-node stand-in records and what the mirror-node and GraphQL
 * stand-ins serve. EVM state (code, storage, receipts, logs, balances in weibar) lives in the EVM and is read through
 * `evm.request`; everything the ledger adds on top (account ids, 48-byte block hashes, consensus timestamps,
 * transaction ids, fees in tinybar, statuses) lives in these records.
 *
 * Conventions: timestamps are `"<seconds>.<9-digit nanos>"` strings; hashes are 0x-prefixed lower-case hex;
 * a ledger block hash is 48 bytes whose first 32 are the EVM block's hash; entity ids are `0.0.<num>`.
 */
import type { EventEmitter } from 'node:events';
import type { LedgerToken } from './tokens.js';
import type { TokenState } from './tokenState.js';

/** An EIP-1193 style request into the sandbox's EVM (Hardhat's EDR). */
export interface EvmRequester {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export interface LedgerAccount {
  /** `0.0.<num>` */
  id: string;
  num: number;
  /** 20-byte EVM address, 0x lower-case. For ECDSA accounts the key-derived address, else the long-zero form. */
  evmAddress: string;
  /** Compressed ECDSA secp256k1 public key (0x + 66 hex), if known. */
  publicKey?: string;
  /** ED25519 public key (0x + 64 hex), for accounts keyed that way (the sandbox's operator, 0.0.2). */
  ed25519PublicKey?: string;
  /** True for contracts (served under /contracts/{id} as well). */
  isContract: boolean;
  createdTimestamp: string;
  /**
   * The alias the account was created under, 0x hex of its bytes: a 20-byte EVM address for a hollow account
   * (HIP-583), a serialized protobuf `Key` for a key-alias account (HIP-32).
   */
  alias?: string;
}

export interface LedgerBlock {
  number: number;
  /** 0x + 96 hex; the first 32 bytes equal the EVM block hash. */
  hash: string;
  previousHash: string;
  timestampFrom: string;
  timestampTo: string;
  /** Transactions recorded in this block (all types, including failed ones). */
  count: number;
  gasUsed: number;
  /** 0x + 512 hex. */
  logsBloom: string;
  /** Record file name, e.g. `2026-11-22T03_26_33.000000000Z.rcd.gz`. */
  name: string;
  size: number;
}

/** The ledger-side record of one transaction; Ethereum details come from the EVM by `ethHash`. */
export interface LedgerTransaction {
  consensusTimestamp: string;
  /** `0.0.<payer>-<validStartSeconds>-<validStartNanos>` */
  transactionId: string;
  payerAccountId: string;
  /** Mirror-node transaction name: ETHEREUMTRANSACTION, FILECREATE, FILEAPPEND, CRYPTOTRANSFER, ... */
  name: string;
  /** Ledger status name: SUCCESS, CONTRACT_REVERT_EXECUTED, WRONG_NONCE, ... */
  result: string;
  chargedTxFeeTinybar: number;
  blockNumber: number;
  /** Position among this block's transactions. */
  index: number;
  /**
   * For ETHEREUMTRANSACTION: the 32-byte Ethereum hash; the EVM knows the transaction by it. For CONTRACTCALL and
   * CONTRACTCREATEINSTANCE that ran: the first 32 bytes of `hash` (see `evmHash`).
   */
  ethHash?: string;
  /**
   * For ETHEREUMTRANSACTION: whether the EVM executed it. False when the ledger refused it first (WRONG_NONCE,
   * WRONG_CHAIN_ID, INSUFFICIENT_PAYER_BALANCE, ...): then the EVM does not know `ethHash`.
   */
  evmExecuted?: boolean;
  /**
   * For an ETHEREUMTRANSACTION the EVM never saw: the signed call data (0x hex, a file's contents included) and gas
   * limit, which the mirror node's default contract result for it still shows.
   */
  signedCall?: { callData: string; gasLimit: number };
  /**
   * For an ETHEREUMTRANSACTION the EVM ran: the gas the network charged for (the record's
   * `ContractFunctionResult.gasUsed`, the mirror node's `gas_used`), where the EVM's own count is `gas_consumed`.
   */
  gasUsed?: number;
  /** For ETHEREUMTRANSACTION: the contract called or created, `0.0.<num>`, if any. */
  contractId?: string;
  /** For FILECREATE/FILEAPPEND: the file. */
  fileId?: string;
  /** For CRYPTOCREATEACCOUNT and TOKENCREATION: what was created; for TOKENASSOCIATE: the account. */
  entityId?: string;
  /** Token movements in the token's smallest unit, as the mirror node lists them under `token_transfers`. */
  tokenTransfers?: Array<{ token: string; account: string; amount: number; isApproval?: boolean }>;
  /** NFT serials moved (a mint's sender is null), as the mirror node lists them under `nft_transfers`. */
  nftTransfers?: Array<{ token: string; serial: number; sender: string | null; receiver: string | null; isApproval: boolean }>;
  /** For TOKENMINT: the token's supply after it, and the serials it minted (TransactionReceipt fields). */
  newTotalSupply?: number;
  serialNumbers?: number[];
  /** Hbar movements in tinybar, as the mirror node lists them under `transfers`. */
  transfers: Array<{ account: string; amount: number }>;
  /** 48-byte ledger transaction hash, 0x hex. */
  hash: string;
  /** A child record's `TransactionID.nonce` (1, 2, ... after its parent's 0); absent for user transactions. */
  nonce?: number;
  memo?: string;
  /**
   * For CONTRACTCALL and CONTRACTCREATEINSTANCE: the hash the EVM knows the execution by, while `ethHash` is the first
   * 32 bytes of `hash`, the hash the mirror node files a consensus-node contract call's result under. For an
   * ETHEREUMTRANSACTION without a chain id (pre-EIP-155), which the EVM here runs as its own unsigned transaction:
   * that transaction's hash, and `signedEthereum` the transaction as signed.
   */
  evmHash?: string;
  signedEthereum?: string;
  /** For CONTRACTCALL and CONTRACTCREATEINSTANCE: what the HAPI body asked for (a creation's init code too) and the gas used. */
  /**
   * For a contract execution that halted exceptionally (not a revert): the halt reason's name, which the consensus node
   * writes as the record's `ContractFunctionResult.errorMessage` (INSUFFICIENT_STACK_ITEMS, INVALID_OPERATION, ...).
   */
  haltReason?: string;
  contractCall?: { functionParameters: string; gasLimit: number; amountTinybar: number; gasUsed: number; initcode?: string };
}

export interface LedgerView extends EventEmitter {
  readonly chainId: number;
  readonly evm: EvmRequester;
  /** Newest first is NOT assumed: blocks are in ascending order. */
  blocks(): readonly LedgerBlock[];
  blockByNumber(n: number): LedgerBlock | undefined;
  /** By 48-byte or 32-byte hash. */
  blockByHash(hash: string): LedgerBlock | undefined;
  transactions(): readonly LedgerTransaction[];
  transactionByEthHash(hash: string): LedgerTransaction | undefined;
  transactionById(transactionId: string): LedgerTransaction | undefined;
  account(idOrAddress: string): LedgerAccount | undefined;
  accounts(): readonly LedgerAccount[];
  /** Balance in tinybar (EVM weibar / 10^10). */
  balanceTinybar(account: LedgerAccount): Promise<bigint>;
  /** Fee schedule: gas price in tinybar per gas unit (the mirror node's /network/fees). */
  gasPriceTinybar(): number;
  /** Tokens (HTS), in creation order. */
  tokens(): readonly LedgerToken[];
  /** A token's associated accounts and their balances. */
  tokenBalances(tokenId: string): ReadonlyMap<string, bigint>;
  /** Token relationships, NFTs and allowances. */
  tokenState(): TokenState;
  /** Emits 'block' (LedgerBlock) when a block closes and 'transaction' (LedgerTransaction) as each is recorded. */
}
