/**
 * Hollow accounts (HIP-583) and public-key aliases (HIP-32) on the ledger sandbox, driven by the real SDK the way the
 * official relay's acceptance set-up drives a network: hbar sent to an EVM address, the record read for the new
 * account, the hollow account then paying for a token create and associate with its ECDSA key.
 */
import {
  AccountBalanceQuery,
  AccountCreateTransaction,
  AccountId,
  AccountInfoQuery,
  Client,
  ContractId,
  EthereumTransaction,
  Hbar,
  KeyList,
  PrivateKey,
  ReceiptStatusError,
  Status,
  TokenAssociateTransaction,
  TokenCreateTransaction,
  TransactionId,
  TransactionRecordQuery,
  TransferTransaction,
} from '@hashgraph/sdk';
import { expect } from 'chai';
import { Wallet } from 'ethers';
import { startLedgerSandbox, type LedgerSandbox } from '../src/index.js';
import { FEES_TINYBAR, FEE_COLLECTOR_ACCOUNT } from '../src/ledger/chain.js';
import { validateMirrorResponse } from '../../../test/support/mirrorSchema.js';

const CHAIN_ID = 298;

describe('sandbox: hollow accounts and key aliases with the real SDK', () => {
  let sandbox: LedgerSandbox;
  let operator: Client;
  const clientFor = (accountId: AccountId | string, key: PrivateKey) =>
    Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(accountId, key);

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
    operator = clientFor(sandbox.operator.accountId, PrivateKey.fromStringDer(sandbox.operator.privateKey));
  });
  after(async () => {
    operator?.close();
    await sandbox?.close();
  });

  const mirror = async (path: string) => {
    const res = await fetch(`${sandbox.mirrorUrl}${path}`);
    const body = await res.json();
    expect(validateMirrorResponse(path, 'get', res.status, body), `${path} against the mirror-node OpenAPI document`).to.deep.equal([]);
    return body as any;
  };

  const send = (to: AccountId, hbar: number) =>
    new TransferTransaction()
      .addHbarTransfer(sandbox.operator.accountId, new Hbar(hbar).negated())
      .addHbarTransfer(to, new Hbar(hbar))
      .execute(operator);

  describe('a transfer to an EVM address', () => {
    const key = PrivateKey.generateECDSA();
    const address = key.publicKey.toEvmAddress();
    let created: AccountId;

    it('lazy-creates a hollow account, credited in the record and named by a preceding child record', async () => {
      const response = await send(AccountId.fromEvmAddress(0, 0, address), 20);
      const record = await response.getRecord(operator);
      expect(record.receipt.status).to.equal(Status.Success);
      const credit = record.transfers.find((t) => t.amount.toTinybars().toNumber() === new Hbar(20).toTinybars().toNumber());
      expect(credit, 'the new account is credited by id').to.not.equal(undefined);
      created = credit!.accountId;
      expect(sandbox.chain.account(`0x${address}`)?.id).to.equal(created.toString());

      const withChildren = await new TransactionRecordQuery().setTransactionId(response.transactionId).setIncludeChildren(true).execute(operator);
      expect(withChildren.children).to.have.length(1);
      const child = withChildren.children[0];
      expect(child.receipt.accountId?.toString()).to.equal(created.toString());
      expect(child.transactionId.nonce?.toNumber()).to.equal(1);
      expect(child.transactionMemo).to.equal('lazy-created account');
      expect(child.evmAddress?.toString()).to.equal(address);
      expect(child.consensusTimestamp.compare(withChildren.consensusTimestamp)).to.equal(-1);
      // The creation's fee is the transfer's payer's, charged in the transfer's record.
      expect(child.transactionFee.toTinybars().toNumber()).to.equal(0);
    });

    it('answers account info with the empty key list, the address as alias and contract account id', async () => {
      const info = await new AccountInfoQuery().setAccountId(created).execute(operator);
      expect(info.key).to.be.instanceOf(KeyList);
      expect((info.key as KeyList).toArray()).to.have.length(0);
      expect(info.contractAccountId).to.equal(address);
      expect(info.balance.toTinybars().toNumber()).to.equal(new Hbar(20).toTinybars().toNumber());
    });

    it('shows on the mirror node: the account by its address, and the creation as a child transaction', async () => {
      const account = await mirror(`/api/v1/accounts/0x${address}`);
      expect(account).to.include({ account: created.toString(), evm_address: `0x${address}`, alias: null, key: null });
      const listed = await mirror(`/api/v1/transactions?transactiontype=CRYPTOCREATEACCOUNT&limit=100`);
      const child = listed.transactions.find((t: { entity_id: string }) => t.entity_id === created.toString());
      expect(child).to.include({ nonce: 1, result: 'SUCCESS', memo_base64: Buffer.from('lazy-created account').toString('base64') });
    });

    it('is completed by paying for a token create with its ECDSA key, and can then associate', async () => {
      const hollow = clientFor(created, key);
      try {
        const create = await new TokenCreateTransaction().setTokenName('Hollow').setTokenSymbol('HLW').setTreasuryAccountId(created).setInitialSupply(1000).execute(hollow);
        const receipt = await create.getReceipt(hollow);
        expect(receipt.status).to.equal(Status.Success);
        const info = await new AccountInfoQuery().setAccountId(created).execute(operator);
        expect(info.key.toString()).to.equal(key.publicKey.toString());
        const record = await new TransactionRecordQuery().setTransactionId(create.transactionId).setIncludeChildren(true).execute(hollow);
        expect(record.children.map((c) => c.receipt.status)).to.deep.equal([Status.Success]);

        const second = await new TokenCreateTransaction().setTokenName('Other').setTokenSymbol('OTH').setTreasuryAccountId(sandbox.operator.accountId).execute(operator);
        const tokenId = (await second.getReceipt(operator)).tokenId!;
        const associate = await new TokenAssociateTransaction().setAccountId(created).setTokenIds([tokenId]).execute(hollow);
        expect((await associate.getReceipt(hollow)).status).to.equal(Status.Success);
      } finally {
        hollow.close();
      }
    });

    it('completes another hollow account by its first EthereumTransaction, the key recovered from its signature', async () => {
      const ethKey = PrivateKey.generateECDSA();
      const lazy = await (await send(AccountId.fromEvmAddress(0, 0, ethKey.publicKey.toEvmAddress()), 5)).getRecord(operator);
      const hollowId = lazy.transfers.find((t) => t.amount.toTinybars().toNumber() === new Hbar(5).toTinybars().toNumber())!.accountId;
      const wallet = new Wallet(`0x${ethKey.toStringRaw()}`);
      const raw = await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: 0, to: sandbox.accounts[0].address, value: 1n, gasLimit: 21_000, maxFeePerGas: 710_000_000_000n, maxPriorityFeePerGas: 0 });
      const response = await new EthereumTransaction().setEthereumData(Buffer.from(raw.slice(2), 'hex')).setMaxGasAllowanceHbar(new Hbar(1)).execute(operator);
      const record = await new TransactionRecordQuery().setTransactionId(response.transactionId).setIncludeChildren(true).execute(operator);
      expect(record.receipt.status).to.equal(Status.Success);
      expect(record.children.map((c) => c.receipt.status)).to.deep.equal([Status.Success]);
      const info = await new AccountInfoQuery().setAccountId(hollowId).execute(operator);
      expect(info.key.toString()).to.equal(ethKey.publicKey.toString());
    });

    it("lets a lazy-created account pay for a token create and a hollow account sign an associate, as the relay's debug set-up does", async () => {
      // The official relay's debug.spec set-up: hbar sent by an EthereumTransaction to a fresh address, then
      // ServicesClient.createHTS with that account as operator and treasury, its own transaction id and node.
      const fresh = PrivateKey.generateECDSA();
      const funder = new Wallet(sandbox.accounts[1].privateKey);
      const raw = await funder.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: 0, to: `0x${fresh.publicKey.toEvmAddress()}`, value: 100n * 10n ** 18n, gasLimit: 21_000, maxFeePerGas: 710_000_000_000n, maxPriorityFeePerGas: 0 });
      const lazy = await new EthereumTransaction().setEthereumData(Buffer.from(raw.slice(2), 'hex')).setMaxGasAllowanceHbar(new Hbar(1)).execute(operator);
      expect((await lazy.getReceipt(operator)).status).to.equal(Status.Success);
      const accountId = AccountId.fromString(sandbox.chain.account(`0x${fresh.publicKey.toEvmAddress()}`)!.id);
      const htsClient = clientFor(accountId, PrivateKey.fromStringDer(fresh.toStringDer()));
      try {
        const expiration = new Date();
        expiration.setDate(expiration.getDate() + 30);
        const create = await new TokenCreateTransaction()
          .setTokenName('TestToken_Shared')
          .setTokenSymbol('TTS')
          .setExpirationTime(expiration)
          .setDecimals(18)
          .setTreasuryAccountId(accountId)
          .setInitialSupply(10000)
          .setTransactionId(TransactionId.generate(accountId))
          .setNodeAccountIds([htsClient._network.getNodeAccountIdsForExecute()[0]])
          .setMaxTransactionFee(50)
          .execute(htsClient);
        const tokenId = (await create.getReceipt(operator)).tokenId!;

        // Then ServicesClient.associateHTSToken: that account pays to associate a second, still hollow account, which
        // signs with its ECDSA key and is completed by it.
        const second = PrivateKey.generateECDSA();
        const secondId = (await (await send(AccountId.fromEvmAddress(0, 0, second.publicKey.toEvmAddress()), 5)).getRecord(operator)).transfers.find(
          (t) => t.amount.toTinybars().toNumber() === new Hbar(5).toTinybars().toNumber(),
        )!.accountId;
        const associate = await (await new TokenAssociateTransaction().setAccountId(secondId).setTokenIds([tokenId]).freezeWith(htsClient).sign(second)).execute(htsClient);
        expect((await associate.getReceipt(htsClient)).status).to.equal(Status.Success);
        const record = await new TransactionRecordQuery().setTransactionId(associate.transactionId).setIncludeChildren(true).execute(operator);
        expect(record.children.map((c) => c.receipt.status)).to.deep.equal([Status.Success]);
        expect((await new AccountInfoQuery().setAccountId(secondId).execute(operator)).key.toString()).to.equal(second.publicKey.toString());

        // Then the native token transfer between them, which the mirror node serves as a synthetic ERC-20 log.
        const transfer = await new TransferTransaction().addTokenTransfer(tokenId, accountId, -100).addTokenTransfer(tokenId, secondId, 100).execute(htsClient);
        const { consensusTimestamp } = await transfer.getRecord(htsClient);
        const logs = await mirror(`/api/v1/contracts/results/logs?timestamp=${consensusTimestamp.seconds}.${String(consensusTimestamp.nanos).padStart(9, '0')}`);
        expect(logs.logs).to.have.length(1);
      } finally {
        htsClient.close();
      }
    });

    it('refuses a hollow payer whose signature is not its address key', async () => {
      const stranger = PrivateKey.generateECDSA();
      const other = await (await send(AccountId.fromEvmAddress(0, 0, PrivateKey.generateECDSA().publicKey.toEvmAddress()), 1)).getRecord(operator);
      const hollowId = other.transfers.find((t) => t.amount.toTinybars().toNumber() === new Hbar(1).toTinybars().toNumber())!.accountId;
      const client = clientFor(hollowId, stranger);
      try {
        const status = await new TokenCreateTransaction().setTokenName('X').setTokenSymbol('X').setTreasuryAccountId(hollowId).execute(client).then(
          () => 'OK',
          (err: { status?: Status }) => err.status?.toString(),
        );
        expect(status).to.equal(Status.InvalidSignature.toString());
      } finally {
        client.close();
      }
    });
  });

  for (const kind of ['ECDSA', 'ED25519'] as const) {
    it(`auto-creates an account for a transfer to an ${kind} public-key alias, with that key`, async () => {
      const key = kind === 'ECDSA' ? PrivateKey.generateECDSA() : PrivateKey.generateED25519();
      const response = await send(key.publicKey.toAccountId(0, 0), 10);
      expect((await response.getReceipt(operator)).status).to.equal(Status.Success);
      // Queries name the account by its alias too, as the acceptance set-up does right after the transfer.
      const info = await new AccountInfoQuery().setAccountId(key.publicKey.toAccountId(0, 0)).execute(operator);
      const record = await new TransactionRecordQuery().setTransactionId(response.transactionId).setIncludeChildren(true).execute(operator);
      expect(record.children[0].transactionMemo).to.equal('auto-created account');
      expect(record.children[0].aliasKey?.toString()).to.equal(key.publicKey.toString());
      const id = record.children[0].receipt.accountId!;
      const byId = await new AccountInfoQuery().setAccountId(id).execute(operator);
      expect(byId.key.toString()).to.equal(key.publicKey.toString());
      if (kind === 'ECDSA') expect(byId.contractAccountId).to.equal(key.publicKey.toEvmAddress());
      expect(info.accountId.toString()).to.equal(id.toString());
      const account = await mirror(`/api/v1/accounts/${id.toString()}`);
      expect(account.alias).to.not.equal(null);
      expect((await mirror(`/api/v1/accounts/${account.alias}`)).account).to.equal(id.toString());
      const balance = await new AccountBalanceQuery().setAccountId(key.publicKey.toAccountId(0, 0)).execute(operator);
      expect(balance.hbars.toTinybars().toNumber()).to.equal(new Hbar(10).toTinybars().toNumber());
      // A second transfer to the same alias credits the same account.
      await (await send(key.publicKey.toAccountId(0, 0), 1)).getReceipt(operator);
      expect((await new AccountBalanceQuery().setAccountId(id).execute(operator)).hbars.toTinybars().toNumber()).to.equal(new Hbar(11).toTinybars().toNumber());
    });
  }

  // The official relay's precompile and equivalence set-ups (servicesClient.createAccountWithContractIdKey): a key
  // list of an ECDSA key and a contract, one of them required, the ECDSA key's address as alias, signed by that key.
  it('creates an account with an EVM-address alias and a threshold-1 key list of a key and a contract', async () => {
    const key = PrivateKey.generateECDSA();
    const list = new KeyList([key.publicKey, ContractId.fromString('0.0.1001')], 1);
    const create = new AccountCreateTransaction().setInitialBalance(new Hbar(5)).setKey(list).setAlias(key.publicKey.toEvmAddress()).freezeWith(operator);
    const receipt = await (await (await create.sign(key)).execute(operator)).getReceipt(operator);
    expect(receipt.status).to.equal(Status.Success);
    const account = await mirror(`/api/v1/accounts/0x${key.publicKey.toEvmAddress()}`);
    expect(account).to.include({ account: receipt.accountId!.toString(), evm_address: `0x${key.publicKey.toEvmAddress()}` });
    // The account's ECDSA key signs for it, here as an Ethereum transaction's sender would.
    const payer = clientFor(receipt.accountId!, key);
    const paid = await (await new TransferTransaction().addHbarTransfer(receipt.accountId!, new Hbar(-1)).addHbarTransfer(sandbox.operator.accountId, new Hbar(1)).execute(payer)).getReceipt(payer);
    payer.close();
    expect(paid.status).to.equal(Status.Success);
    // The alias's own key must sign the creation.
    const unsigned = new AccountCreateTransaction().setKey(PrivateKey.generateECDSA().publicKey).setAlias(PrivateKey.generateECDSA().publicKey.toEvmAddress());
    const err = await unsigned.execute(operator).then((r) => r.getReceipt(operator)).catch((e: unknown) => e);
    expect((err as { status?: Status }).status?.toString()).to.equal(Status.InvalidAliasKey.toString());
  });

  it('answers INVALID_ACCOUNT_ID for a debit from an alias no account has', async () => {
    const nobody = AccountId.fromEvmAddress(0, 0, PrivateKey.generateECDSA().publicKey.toEvmAddress());
    const err = await new TransferTransaction()
      .addHbarTransfer(nobody, new Hbar(-1))
      .addHbarTransfer(sandbox.operator.accountId, new Hbar(1))
      .execute(operator)
      .then((r) => r.getReceipt(operator))
      .catch((e: unknown) => e);
    expect((err as { status?: Status }).status?.toString()).to.equal(Status.InvalidAccountId.toString());
    expect(err instanceof ReceiptStatusError || (err as Error).constructor.name === 'PrecheckStatusError').to.equal(true);
  });

  // The official relay's acceptance set-up (servicesClient.createInitialAliasAccount) operates as 0.0.2, sends hbar to
  // an EVM address and takes the new account from `record.transfers[1]`: right only when the payer pays no fees.
  describe('fee exemption of the superusers', () => {
    const tinybar = (hbar: number) => new Hbar(hbar).toTinybars().toNumber();
    const transfersOf = (record: { transfers: Array<{ accountId: AccountId; amount: Hbar }> }) =>
      record.transfers.map((t) => ({ account: t.accountId.toString(), amount: t.amount.toTinybars().toNumber() }));
    const collected = async () => (await new AccountBalanceQuery().setAccountId(FEE_COLLECTOR_ACCOUNT).execute(operator)).hbars.toTinybars().toNumber();

    it('records a transfer paid by the treasury 0.0.2 with no fee: transfers are [0.0.2 debit, new account credit]', async () => {
      expect(sandbox.superuser.accountId).to.equal('0.0.2');
      const treasury = clientFor(sandbox.superuser.accountId, PrivateKey.fromStringDer(sandbox.superuser.privateKey));
      try {
        const address = PrivateKey.generateECDSA().publicKey.toEvmAddress();
        const feesBefore = await collected();
        const response = await new TransferTransaction()
          .addHbarTransfer(sandbox.superuser.accountId, new Hbar(2000).negated())
          .addHbarTransfer(AccountId.fromEvmAddress(0, 0, address), new Hbar(2000))
          .execute(treasury);
        const record = await response.getRecord(treasury);
        const created = sandbox.chain.account(`0x${address}`)!.id;
        expect(transfersOf(record)).to.deep.equal([
          { account: '0.0.2', amount: -tinybar(2000) },
          { account: created, amount: tinybar(2000) },
        ]);
        expect(record.transfers[1].accountId.toString()).to.equal(created);
        expect(record.transactionFee.toTinybars().toNumber()).to.equal(0);
        expect(await collected()).to.equal(feesBefore);
        const [listed] = (await mirror('/api/v1/transactions?account.id=0.0.2&order=desc&limit=1')).transactions;
        expect(listed).to.include({ charged_tx_fee: 0, result: 'SUCCESS', name: 'CRYPTOTRANSFER' });
        expect(listed.transfers.map((t: { account: string }) => t.account)).to.deep.equal(['0.0.2', created]);
      } finally {
        treasury.close();
      }
    });

    it('charges the system admin 0.0.50 no fee either', async () => {
      const admin = clientFor('0.0.50', PrivateKey.fromStringDer(sandbox.superuser.privateKey));
      try {
        const response = await new TransferTransaction()
          .addHbarTransfer(sandbox.superuser.accountId, new Hbar(-1))
          .addHbarTransfer('0.0.50', new Hbar(1))
          .execute(admin);
        const record = await response.getRecord(admin);
        expect(transfersOf(record)).to.deep.equal([{ account: '0.0.2', amount: -tinybar(1) }, { account: '0.0.50', amount: tinybar(1) }]);
        expect(record.transactionFee.toTinybars().toNumber()).to.equal(0);
      } finally {
        admin.close();
      }
    });

    it('still charges an ordinary payer (the relay operator) its fees, listed in account order', async () => {
      expect(sandbox.operator.accountId).to.not.equal('0.0.2');
      const address = PrivateKey.generateECDSA().publicKey.toEvmAddress();
      const feesBefore = await collected();
      const record = await (await send(AccountId.fromEvmAddress(0, 0, address), 3)).getRecord(operator);
      const created = sandbox.chain.account(`0x${address}`)!.id;
      const fee = Number(FEES_TINYBAR.CRYPTOTRANSFER + FEES_TINYBAR.CRYPTOCREATEACCOUNT);
      expect(transfersOf(record)).to.deep.equal([
        { account: FEE_COLLECTOR_ACCOUNT, amount: fee },
        { account: sandbox.operator.accountId, amount: -tinybar(3) - fee },
        { account: created, amount: tinybar(3) },
      ]);
      expect(record.transactionFee.toTinybars().toNumber()).to.equal(fee);
      expect((await collected()) - feesBefore).to.equal(fee);
    });
  });
});
