/**
 * The ledger sandbox's starting history, built through its own consensus path: the real `@hashgraph/sdk` submits
 * over gRPC to the consensus-node stand-in, which prechecks, queues and records each transaction as it records any
 * user's. Three record files, each closed as soon as its transactions are in:
 *
 * 1. two accounts created; 10 HBAR from prefunded account 0 to account 1; an HTS token created (treasury 0.0.2);
 *    the ERC-20 deployed, two transfers and one that reverts (Ethereum transactions signed by account 0);
 * 2. prefunded account 1 associates with the HTS token; the first new account sends 5 HBAR to prefunded account 2;
 * 3. 250.00 of the HTS token from the treasury to prefunded account 1.
 */
import {
  AccountCreateTransaction,
  AccountId,
  Client,
  EthereumTransaction,
  Hbar,
  PrivateKey,
  TokenAssociateTransaction,
  TokenCreateTransaction,
  TransferTransaction,
  type Transaction,
} from '@hashgraph/sdk';
import { Transaction as EthereumTx, getBytes } from 'ethers';
import { sandboxAccounts } from '../accounts.js';
import type { LedgerChain } from '../ledger/chain.js';
import { erc20History } from './erc20.js';

export const HTS_NAME = 'Sandbox HTS Token';
export const HTS_SYMBOL = 'SHT';
export const HTS_DECIMALS = 2;
/** 10,000.00 SHT in its smallest unit. */
export const HTS_SUPPLY = 1_000_000n;
export const HTS_TRANSFER = 25_000n;
/** The ledger's gas price (71 tinybar) in weibar: what the ERC-20 transactions offer. */
const LEDGER_GAS_PRICE_WEIBAR = 710_000_000_000n;
/** Mnemonic indices of the accounts the history creates (the prefunded ones are 0 to 9). */
const CREATED_INDICES = [10, 11];

export interface LedgerHistoryTarget {
  chain: LedgerChain;
  /** `{ "host:port": "0.0.3" }` */
  consensus: Record<string, string>;
  operator: { accountId: string; privateKey: string };
}

/** What the history made, by role. */
export interface LedgerHistory {
  createdAccounts: string[];
  htsToken: string;
  erc20: string;
  /** Ethereum hashes of the ERC-20 transactions (deploy, two transfers, the revert). */
  erc20Hashes: string[];
}

export async function buildLedgerHistory(target: LedgerHistoryTarget): Promise<LedgerHistory> {
  const { chain } = target;
  const operatorKey = PrivateKey.fromStringDer(target.operator.privateKey);
  const client = Client.forNetwork(target.consensus).setOperator(target.operator.accountId, operatorKey);
  const prefunded = sandboxAccounts(Math.max(...CREATED_INDICES) + 1);
  const idOf = (i: number) => AccountId.fromString(chain.account(prefunded[i].address)!.id);
  const keyOf = (i: number) => PrivateKey.fromStringECDSA(prefunded[i].privateKey);

  /** Submits in order (the ERC-20 nonces depend on it), closes the record file, returns the receipts. */
  async function block(txs: Array<{ tx: Transaction; signers?: PrivateKey[]; expect?: string }>) {
    const responses = [];
    for (const { tx, signers = [] } of txs) {
      tx.freezeWith(client);
      for (const key of signers) await tx.sign(key);
      responses.push(await tx.execute(client));
    }
    await chain.closePending();
    const receipts = await Promise.all(responses.map((r) => r.getReceiptQuery().setValidateStatus(false).execute(client)));
    receipts.forEach((receipt, i) => {
      const expected = txs[i].expect ?? 'SUCCESS';
      if (receipt.status.toString() !== expected) throw new Error(`sandbox history: step ${i} ended ${receipt.status}, expected ${expected}`);
    });
    return receipts;
  }

  try {
    const deployer = chain.account(prefunded[0].address)!;
    const nonce = Number(await chain.evm.request({ method: 'eth_getTransactionCount', params: [deployer.evmAddress, 'latest'] }));
    const erc20 = await erc20History(chain.chainId, nonce, LEDGER_GAS_PRICE_WEIBAR);
    const ethereum = (signed: string) => new EthereumTransaction().setEthereumData(getBytes(signed)).setMaxGasAllowanceHbar(new Hbar(0));
    const first = await block([
      ...CREATED_INDICES.map((i) => ({ tx: new AccountCreateTransaction().setKeyWithoutAlias(keyOf(i).publicKey).setInitialBalance(new Hbar(100)) })),
      { tx: new TransferTransaction().addHbarTransfer(idOf(0), new Hbar(-10)).addHbarTransfer(idOf(1), new Hbar(10)), signers: [keyOf(0)] },
      {
        tx: new TokenCreateTransaction()
          .setTokenName(HTS_NAME)
          .setTokenSymbol(HTS_SYMBOL)
          .setDecimals(HTS_DECIMALS)
          .setInitialSupply(Number(HTS_SUPPLY))
          .setTreasuryAccountId(target.operator.accountId)
          .setAdminKey(operatorKey.publicKey)
          .setTokenMemo('sandbox history'),
      },
      ...erc20.signed.map((signed, i) => ({ tx: ethereum(signed), expect: i === 3 ? 'CONTRACT_REVERT_EXECUTED' : 'SUCCESS' })),
    ]);
    const created = first.slice(0, CREATED_INDICES.length).map((r) => r.accountId!.toString());
    const token = first[CREATED_INDICES.length + 1].tokenId!;
    await block([
      { tx: new TokenAssociateTransaction().setAccountId(idOf(1)).setTokenIds([token]), signers: [keyOf(1)] },
      {
        tx: new TransferTransaction().addHbarTransfer(created[0], new Hbar(-5)).addHbarTransfer(idOf(2), new Hbar(5)),
        signers: [keyOf(CREATED_INDICES[0])],
      },
    ]);
    await block([
      {
        tx: new TransferTransaction()
          .addTokenTransfer(token, target.operator.accountId, -Number(HTS_TRANSFER))
          .addTokenTransfer(token, idOf(1), Number(HTS_TRANSFER)),
      },
    ]);
    return { createdAccounts: created, htsToken: token.toString(), erc20: erc20.address, erc20Hashes: erc20.signed.map((s) => EthereumTx.from(s).hash!) };
  } finally {
    client.close();
  }
}
