/**
 * The ledger's system contracts in the sandbox's EVM. EDR runs no JavaScript precompiles, so they are EVM code
 * (SystemContracts.sol): the token service at 0x167 (HIP-206), the exchange rate at 0x168 (HIP-475), the PRNG at
 * 0x169 (HIP-351), and each token's ERC-20/ERC-721 facade (HIP-218, HIP-376) as an EIP-7702 designator to 0x167 at
 * the token's long-zero address, the code the network's relay reports for a token.
 *
 * The ledger's token state stays the truth. Before each block's EVM work, every token's storage (and 0x167's copy of
 * its flags) is brought in step with it (only the slots that changed are written); after the block, the facade's
 * Transfer, Approval and ApprovalForAll events, and the allowances its transferFrom spent, are read back into it.
 * Hence what works:
 * eth_call and Ethereum transactions to a token or to 0x167-0x169, directly or from inside contracts (CALL,
 * STATICCALL and, for 0x168 and 0x169, DELEGATECALL), value sent to them refused with INVALID_FEE_SUBMITTED; token
 * creation at 0x167 (createFungibleToken, createNonFungibleToken: the EVM code checks the call and hands out the
 * token's number, and the ledger creates the token from the call's trace after the block, systemContractCalls.ts).
 * What does not: 0x167's other state-changing functions (mintToken, associateToken, transferToken...), which revert
 * NOT_SUPPORTED; a token created in a transaction has no code until its block closes; and within one block, EVM
 * transactions see every native change of that block, whatever their order.
 */
import { AbiCoder, id as eventTopic, getAddress, keccak256 } from 'ethers';
import type { EvmRequester } from './view.js';
import { exchangeRateSet } from './hapi.js';
import { entityId, entityNum, longZeroAddress, longZeroNum } from './ids.js';
import type { TokenState } from './tokenState.js';
import type { LedgerToken } from './tokens.js';
import { EXCHANGE_RATE_RUNTIME, HTS_RUNTIME, PRNG_RUNTIME } from './systemContractsCode.js';

export const HTS_ADDRESS = '0x0000000000000000000000000000000000000167';
export const EXCHANGE_RATE_ADDRESS = '0x0000000000000000000000000000000000000168';
export const PRNG_ADDRESS = '0x0000000000000000000000000000000000000169';
/** EIP-7702: 0xef0100 followed by the address whose code runs. */
const DELEGATION_TO_HTS = `0xef0100${HTS_ADDRESS.slice(2)}`;

/** Storage layout of HtsSystemContract (SystemContracts.sol), slot by slot. */
const SLOT = {
  name: 0n,
  symbol: 1n,
  decimals: 2n,
  flags: 3n,
  totalSupply: 4n,
  balances: 5n,
  allowances: 6n,
  relations: 7n,
  owners: 8n,
  approved: 9n,
  operators: 10n,
  metadata: 11n,
  tokenFlags: 12n,
  nextEntityNum: 13n,
  accounts: 14n,
  createFeeWeibar: 15n,
};
const FLAG = { token: 1n, nft: 2n, kycKey: 4n, freezeKey: 8n, freezeDefault: 16n };
const RELATION = { associated: 1n, kycGranted: 2n, frozen: 4n };

const TOPIC = {
  transfer: eventTopic('Transfer(address,address,uint256)'),
  approval: eventTopic('Approval(address,address,uint256)'),
  approvalForAll: eventTopic('ApprovalForAll(address,address,bool)'),
};

const abi = AbiCoder.defaultAbiCoder();
const word = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;
const mapSlot = (key: string | bigint, slot: bigint) =>
  BigInt(keccak256(abi.encode([typeof key === 'string' ? 'address' : 'uint256', 'uint256'], [key, slot])));
const nestedSlot = (outer: string, inner: string, slot: bigint) => mapSlot(inner, mapSlot(outer, slot));
const topicAddress = (topic: string) => `0x${topic.slice(26)}`.toLowerCase();

/** Solidity's storage of a string (or bytes): short ones in the slot itself, long ones after keccak256(slot). */
function stringWords(slot: bigint, bytes: Uint8Array, out: Map<bigint, string>): void {
  if (bytes.length < 32) {
    const w = Buffer.alloc(32);
    Buffer.from(bytes).copy(w);
    w[31] = bytes.length * 2;
    out.set(slot, `0x${w.toString('hex')}`);
    return;
  }
  out.set(slot, word(BigInt(bytes.length * 2 + 1)));
  const base = BigInt(keccak256(word(slot)));
  for (let i = 0; i < bytes.length; i += 32) {
    const w = Buffer.alloc(32);
    Buffer.from(bytes.subarray(i, i + 32)).copy(w);
    out.set(base + BigInt(i / 32), `0x${w.toString('hex')}`);
  }
}

export interface AccountAddresses {
  /** Every EVM address that names the account (its key-derived address and its long-zero one). */
  addressesOf(accountId: string): string[];
  /** The account an EVM address names. */
  accountOf(address: string): string | undefined;
}

export class SystemContracts {
  /** token id -> the storage words last written (slot -> 32-byte hex). */
  readonly #written = new Map<string, Map<bigint, string>>();
  /** The account addresses 0x167 already knows. */
  readonly #knownAddresses = new Set<string>();

  constructor(readonly evm: EvmRequester) {}

  /** Installs the system contracts; a token creation from the EVM costs `createFeeWeibar` of the value sent with it. */
  async install(createFeeWeibar: bigint): Promise<void> {
    await this.#setCode(HTS_ADDRESS, HTS_RUNTIME);
    await this.#store(HTS_ADDRESS, SLOT.createFeeWeibar, word(createFeeWeibar));
    await this.#setCode(EXCHANGE_RATE_ADDRESS, EXCHANGE_RATE_RUNTIME);
    await this.#setCode(PRNG_ADDRESS, PRNG_RUNTIME);
    // The rate receipts carry, so the EVM and the ledger convert alike.
    const rate = exchangeRateSet().currentRate!;
    await this.#store(EXCHANGE_RATE_ADDRESS, 0n, word(BigInt(rate.hbarEquiv!)));
    await this.#store(EXCHANGE_RATE_ADDRESS, 1n, word(BigInt(rate.centEquiv!)));
  }

  /** Whether the address is a system contract or a token, which the ledger has no account for. */
  isSystemAddress(address: string, state: TokenState): boolean {
    const a = address.toLowerCase();
    if (a === HTS_ADDRESS || a === EXCHANGE_RATE_ADDRESS || a === PRNG_ADDRESS) return true;
    return this.tokenAt(a, state) !== undefined;
  }

  /** The token whose long-zero address this is. */
  tokenAt(address: string, state: TokenState): LedgerToken | undefined {
    const num = longZeroNum(address);
    return num === undefined ? undefined : state.token(entityId(num));
  }

  /**
   * Tells 0x167 what a token creation checks and takes: the ledger's next entity number, and which addresses are
   * accounts (a treasury or auto-renew account must be one).
   */
  async syncLedger(nextEntityNum: number, accountAddresses: Iterable<string>): Promise<void> {
    await this.#store(HTS_ADDRESS, SLOT.nextEntityNum, word(BigInt(nextEntityNum)));
    for (const address of accountAddresses) {
      if (this.#knownAddresses.has(address)) continue;
      await this.#store(HTS_ADDRESS, mapSlot(address, SLOT.accounts), word(1n));
      this.#knownAddresses.add(address);
    }
  }

  /** The entity number 0x167 would hand out next: past the ledger's, once the EVM created tokens. */
  async nextEntityNum(): Promise<number> {
    const slot = `0x${SLOT.nextEntityNum.toString(16)}`;
    return Number(BigInt((await this.evm.request({ method: 'eth_getStorageAt', params: [HTS_ADDRESS, slot, 'latest'] })) as string));
  }

  /** Writes every token's changed storage (and a new token's designator) from the ledger's token state. */
  async sync(state: TokenState, accounts: AccountAddresses): Promise<void> {
    for (const token of state.tokens()) {
      const address = longZeroAddress(entityNum(token.id)!);
      const previous = this.#written.get(token.id);
      if (!previous) await this.#setCode(address, DELEGATION_TO_HTS);
      const desired = this.#layout(token, state, accounts);
      for (const [slot, value] of desired) {
        if (previous?.get(slot) !== value) await this.#store(address, slot, value);
      }
      for (const slot of previous?.keys() ?? []) {
        if (!desired.has(slot)) await this.#store(address, slot, word(0n));
      }
      // 0x167 answers its token views from its own copy of each token's flags.
      const flags = desired.get(SLOT.flags)!;
      if (previous?.get(SLOT.flags) !== flags) await this.#store(HTS_ADDRESS, mapSlot(address, SLOT.tokenFlags), flags);
      this.#written.set(token.id, desired);
    }
  }

  #layout(token: LedgerToken, state: TokenState, accounts: AccountAddresses): Map<bigint, string> {
    const out = new Map<bigint, string>();
    stringWords(SLOT.name, Buffer.from(token.name), out);
    stringWords(SLOT.symbol, Buffer.from(token.symbol), out);
    out.set(SLOT.decimals, word(BigInt(token.decimals)));
    const flags =
      FLAG.token |
      (token.type === 'NON_FUNGIBLE_UNIQUE' ? FLAG.nft : 0n) |
      (token.keys.kyc ? FLAG.kycKey : 0n) |
      (token.keys.freeze ? FLAG.freezeKey : 0n) |
      (token.freezeDefault ? FLAG.freezeDefault : 0n);
    out.set(SLOT.flags, word(flags));
    out.set(SLOT.totalSupply, word(token.totalSupply));
    for (const [account, relation] of state.ledger.holders(token.id)) {
      const bits = RELATION.associated | (relation.kyc === 'GRANTED' ? RELATION.kycGranted : 0n) | (relation.freeze === 'FROZEN' ? RELATION.frozen : 0n);
      for (const address of accounts.addressesOf(account)) {
        if (relation.balance !== 0n) out.set(mapSlot(address, SLOT.balances), word(relation.balance));
        out.set(mapSlot(address, SLOT.relations), word(bits));
      }
    }
    // An owner may be named by either of its addresses in transferFrom; the spender is whoever calls.
    for (const a of state.allowances.ofToken(token.id)) {
      for (const owner of accounts.addressesOf(a.owner)) {
        for (const spender of accounts.addressesOf(a.spender)) out.set(nestedSlot(owner, spender, SLOT.allowances), word(a.amount));
      }
    }
    for (const a of state.allowances.nftAllowances()) {
      if (a.token !== token.id || !a.approvedForAll) continue;
      for (const owner of accounts.addressesOf(a.owner)) {
        for (const spender of accounts.addressesOf(a.spender)) out.set(nestedSlot(owner, spender, SLOT.operators), word(1n));
      }
    }
    for (const n of state.nfts.ofToken(token.id)) {
      out.set(mapSlot(BigInt(n.serial), SLOT.owners), word(BigInt(accounts.addressesOf(n.owner)[0])));
      if (n.spender) out.set(mapSlot(BigInt(n.serial), SLOT.approved), word(BigInt(accounts.addressesOf(n.spender)[0])));
      stringWords(mapSlot(BigInt(n.serial), SLOT.metadata), n.metadata, out);
    }
    return out;
  }

  /**
   * Reads one block's facade events back into the ledger's token state: transfers move balances and serials,
   * approvals set allowances; allowances a transferFrom spent are read from the token's storage.
   */
  async absorb(blockNumber: string, timestamp: string, state: TokenState, accounts: AccountAddresses): Promise<void> {
    const tokens = state.tokens();
    if (tokens.length === 0) return;
    const logs = (await this.evm.request({
      method: 'eth_getLogs',
      params: [{ fromBlock: blockNumber, toBlock: blockNumber, address: tokens.map((t) => longZeroAddress(entityNum(t.id)!)) }],
    })) as Array<{ address: string; topics: string[]; data: string }>;
    const spentFrom = new Set<string>();
    for (const log of logs) {
      const token = this.tokenAt(log.address, state);
      const [topic, a, b, serial] = log.topics;
      if (!token || !a || !b) continue;
      const from = accounts.accountOf(topicAddress(a));
      const to = accounts.accountOf(topicAddress(b));
      if (!from || !to) continue;
      const nft = serial !== undefined;
      if (topic === TOPIC.transfer) {
        if (nft) {
          state.nfts.apply([{ token: token.id, serial: Number(BigInt(serial)), sender: from, receiver: to }], timestamp);
          state.ledger.apply([{ token: token.id, account: from, amount: -1n }, { token: token.id, account: to, amount: 1n }]);
        } else {
          state.ledger.apply([{ token: token.id, account: from, amount: -BigInt(log.data) }, { token: token.id, account: to, amount: BigInt(log.data) }]);
          spentFrom.add(token.id);
        }
      } else if (topic === TOPIC.approval) {
        if (nft) {
          const n = state.nfts.nft(token.id, Number(BigInt(serial)));
          if (n) Object.assign(n, { spender: BigInt(b) === 0n ? undefined : to, modifiedTimestamp: timestamp });
        } else {
          state.allowances.setAmount(from, to, token.id, BigInt(log.data), timestamp);
        }
      } else if (topic === TOPIC.approvalForAll) {
        state.allowances.setApprovedForAll(from, to, token.id, BigInt(log.data) !== 0n, timestamp);
      }
    }
    for (const tokenId of spentFrom) await this.#readAllowances(tokenId, state, accounts);
  }

  /** A transferFrom lowered one address pair's allowance: the smallest across the owner's and spender's addresses. */
  async #readAllowances(tokenId: string, state: TokenState, accounts: AccountAddresses): Promise<void> {
    const address = longZeroAddress(entityNum(tokenId)!);
    for (const a of state.allowances.ofToken(tokenId)) {
      let least = a.amount;
      for (const owner of accounts.addressesOf(a.owner)) {
        for (const spender of accounts.addressesOf(a.spender)) {
          const slot = word(nestedSlot(owner, spender, SLOT.allowances));
          const value = BigInt((await this.evm.request({ method: 'eth_getStorageAt', params: [address, slot, 'latest'] })) as string);
          if (value < least) least = value;
        }
      }
      if (least < a.amount) state.allowances.spend(a.owner, a.spender, tokenId, a.amount - least);
    }
  }

  async #setCode(address: string, code: string): Promise<void> {
    await this.evm.request({ method: 'hardhat_setCode', params: [getAddress(address), code] });
  }

  async #store(address: string, slot: bigint, value: string): Promise<void> {
    await this.evm.request({ method: 'hardhat_setStorageAt', params: [getAddress(address), `0x${slot.toString(16)}`, value] });
  }
}
