/**
 * Decoding of the ledger's own service transactions the sandbox serves (CryptoCreate, CryptoTransfer with hbar,
 * fungible and NFT moves, TokenAssociate, and the token transactions of tokenDecode.ts) into the chain's work, with
 * the accounts whose keys must sign besides the payer: whoever is debited (unless the payer spends an allowance),
 * a new token's treasury and keys, the account being associated.
 */
import type { proto } from '@hashgraph/proto';
import type { NativeDecoded } from './nativeWork.js';
import type { PublicKey } from '@hashgraph/sdk';
import { accountRef, evmAddressOf } from './aliases.js';
import { idOf, toBigInt } from './hapi.js';
import { TOKEN_METHODS, decodeToken, simpleKey } from './tokenDecode.js';

export const NATIVE_METHODS: Record<string, string> = {
  cryptoCreateAccount: 'createAccount',
  cryptoTransfer: 'cryptoTransfer',
  tokenCreation: 'createToken',
  tokenAssociate: 'associateTokens',
  ...TOKEN_METHODS,
};

/**
 * The key that signs for a new account: a simple key, or a threshold-1 key list holding one simple key beside
 * contract ids (what the official relay's acceptance set-up gives an account a contract may act for), whose contract
 * ids no signature can stand for. Other key structures are not modelled.
 */
function signingKey(key: proto.IKey | null | undefined): PublicKey | undefined {
  const simple = simpleKey(key);
  if (simple || key?.thresholdKey?.threshold !== 1) return simple;
  const members = key.thresholdKey.keys?.keys ?? [];
  const simples = members.map(simpleKey).filter((k): k is PublicKey => k !== undefined);
  const rest = members.filter((k) => !simpleKey(k));
  return simples.length === 1 && rest.every((k) => k.contractID || k.delegatableContractId) ? simples[0] : undefined;
}

/** The work a body asks for, or the precheck status that refuses it. */
export function decodeNative(body: proto.TransactionBody): NativeDecoded | string {
  switch (body.data) {
    case 'cryptoCreateAccount': {
      const c = body.cryptoCreateAccount!;
      const key = signingKey(c.key);
      if (!key) return 'KEY_REQUIRED';
      const work = { name: 'CRYPTOCREATEACCOUNT' as const, key, initialBalanceTinybar: toBigInt(c.initialBalance) };
      if (!c.alias?.length) return { work, signers: [], keys: [] };
      // HIP-583: an EVM-address alias is the account's EVM address, and its ECDSA key must sign (hiero-consensus-node
      // CryptoCreateHandler.preHandle requires the alias's signature). The sandbox finds that key among the account's.
      const alias = `0x${Buffer.from(c.alias).toString('hex')}`;
      if (c.alias.length !== 20 || key.type !== 'secp256k1' || evmAddressOf(key) !== alias) return 'INVALID_ALIAS_KEY';
      return { work: { ...work, alias }, signers: [], keys: [key] };
    }
    case 'cryptoTransfer': {
      const t = body.cryptoTransfer!;
      const hbar: Array<{ account: string; amount: bigint; isApproval?: boolean }> = [];
      for (const aa of t.transfers?.accountAmounts ?? []) {
        // An account may be named by alias (HIP-32 key, HIP-583 EVM address): the chain resolves or creates it.
        const account = accountRef(aa.accountID);
        if (!account) return 'INVALID_ACCOUNT_ID';
        hbar.push({ account, amount: toBigInt(aa.amount), ...(aa.isApproval ? { isApproval: true } : {}) });
      }
      const tokens: Array<{ token: string; account: string; amount: bigint; isApproval?: boolean }> = [];
      const nfts: Array<{ token: string; serial: number; sender: string; receiver: string; isApproval?: boolean }> = [];
      for (const list of t.tokenTransfers ?? []) {
        const token = idOf(list.token);
        if (!token) return 'INVALID_TOKEN_ID';
        for (const aa of list.transfers ?? []) {
          const account = idOf(aa.accountID);
          if (!account) return 'INVALID_ACCOUNT_ID';
          tokens.push({ token, account, amount: toBigInt(aa.amount), ...(aa.isApproval ? { isApproval: true } : {}) });
        }
        for (const n of list.nftTransfers ?? []) {
          const sender = idOf(n.senderAccountID);
          const receiver = idOf(n.receiverAccountID);
          if (!sender || !receiver) return 'INVALID_ACCOUNT_ID';
          if (sender === receiver) return 'ACCOUNT_REPEATED_IN_ACCOUNT_AMOUNTS';
          nfts.push({ token, serial: Number(toBigInt(n.serialNumber)), sender, receiver, ...(n.isApproval ? { isApproval: true } : {}) });
        }
      }
      if (hbar.length === 0 && tokens.length === 0 && nfts.length === 0) return 'EMPTY_TRANSACTION_BODY';
      // An approved debit is signed for by the payer, who spends the owner's allowance (HIP-336).
      const debited = [
        ...[...hbar, ...tokens].filter((m) => m.amount < 0n && !m.isApproval).map((m) => m.account),
        ...nfts.filter((n) => !n.isApproval).map((n) => n.sender),
      ];
      return { work: { name: 'CRYPTOTRANSFER', hbar, tokens, nfts }, signers: [...new Set(debited)], keys: [] };
    }
    case 'tokenAssociate': {
      const a = body.tokenAssociate!;
      const account = idOf(a.account);
      if (!account) return 'INVALID_ACCOUNT_ID';
      const tokens: string[] = [];
      for (const t of a.tokens ?? []) {
        const id = idOf(t);
        if (!id) return 'INVALID_TOKEN_ID';
        tokens.push(id);
      }
      return { work: { name: 'TOKENASSOCIATE', account, tokens }, signers: [account], keys: [] };
    }
  }
  return decodeToken(body);
}
