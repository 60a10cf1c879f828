/**
 * The consensus stand-in's own services (accounts, hbar and token transfers, tokens) refuse what the ledger refuses,
 * through the real @hashgraph/sdk: a debit without the debited account's signature, a token sent to an account that
 * is not associated, more tokens than the sender holds. A refused transfer moves nothing.
 */
import { AccountId, Client, Hbar, PrivateKey, TransferTransaction, type TransactionResponse } from '@hashgraph/sdk';
import { expect } from 'chai';
import { HTS_TRANSFER } from '../src/history/ledger.js';
import { startLedgerSandbox, type LedgerSandbox } from '../src/index.js';

describe('ledger sandbox: native service rules (CryptoTransfer, tokens)', function () {
  let sandbox: LedgerSandbox;
  let client: Client;
  let token: string;
  const account = (i: number) => AccountId.fromString(sandbox.accounts[i].accountId);
  const key = (i: number) => PrivateKey.fromStringECDSA(sandbox.accounts[i].privateKey);
  const balances = async () => (await (await fetch(`${sandbox.mirrorUrl}/api/v1/tokens/${token}/balances`)).json()).balances;
  const status = async (response: TransactionResponse) =>
    (await response.getReceiptQuery().setValidateStatus(false).execute(client)).status.toString();

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: 298, blockIntervalMs: 0, history: true });
    client = Client.forNetwork(sandbox.consensus).setOperator(sandbox.operator.accountId, PrivateKey.fromStringDer(sandbox.operator.privateKey));
    token = sandbox.history!.htsToken;
  });

  after(async () => {
    client?.close();
    await sandbox?.close();
  });

  it('refuses at precheck a debit the debited account did not sign', async () => {
    const tx = new TransferTransaction().addHbarTransfer(account(1), new Hbar(-1)).addHbarTransfer(account(2), new Hbar(1));
    const err = await tx.execute(client).catch((e) => e);
    expect(String(err.status)).to.equal('INVALID_SIGNATURE');
  });

  it('refuses a token transfer to an account not associated with the token, and moves nothing', async () => {
    const before = await balances();
    const tx = new TransferTransaction().addTokenTransfer(token, sandbox.operator.accountId, -1).addTokenTransfer(token, account(3), 1);
    expect(await status(await tx.execute(client))).to.equal('TOKEN_NOT_ASSOCIATED_TO_ACCOUNT');
    expect(await balances()).to.deep.equal(before);
  });

  it('refuses sending more tokens than the sender holds, and moves nothing', async () => {
    const before = await balances();
    const tx = new TransferTransaction()
      .addTokenTransfer(token, account(1), -Number(HTS_TRANSFER) - 1)
      .addTokenTransfer(token, sandbox.operator.accountId, Number(HTS_TRANSFER) + 1)
      .freezeWith(client);
    await tx.sign(key(1));
    expect(await status(await tx.execute(client))).to.equal('INSUFFICIENT_TOKEN_BALANCE');
    expect(await balances()).to.deep.equal(before);
  });

  it('moves hbar and tokens together when the sender signed', async () => {
    const tx = new TransferTransaction()
      .addTokenTransfer(token, account(1), -100)
      .addTokenTransfer(token, sandbox.operator.accountId, 100)
      .addHbarTransfer(account(1), new Hbar(-2))
      .addHbarTransfer(account(4), new Hbar(2))
      .freezeWith(client);
    await tx.sign(key(1));
    expect(await status(await tx.execute(client))).to.equal('SUCCESS');
    expect(await balances()).to.deep.include({ account: sandbox.accounts[1].accountId, balance: Number(HTS_TRANSFER) - 100, decimals: 2 });
  });
});
