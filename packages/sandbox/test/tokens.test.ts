/**
 * The sandbox's token service driven by the real SDK over gRPC, in the flows the official relay's acceptance suites
 * use (create an NFT, mint, associate, KYC, freeze, approve, transfer), read back through the mirror-node stand-in
 * and checked against the mirror node's OpenAPI document.
 */
import {
  AccountAllowanceApproveTransaction,
  AccountCreateTransaction,
  AccountId,
  Client,
  Hbar,
  NftId,
  PrivateKey,
  ReceiptStatusError,
  TokenAssociateTransaction,
  TokenCreateTransaction,
  TokenFreezeTransaction,
  TokenGrantKycTransaction,
  TokenId,
  TokenMintTransaction,
  TokenRevokeKycTransaction,
  TokenSupplyType,
  TokenType,
  TokenUnfreezeTransaction,
  TransactionId,
  TransactionReceipt,
  TransactionResponse,
  TransferTransaction,
  type Transaction,
} from '@hashgraph/sdk';
import { expect } from 'chai';
import { startLedgerSandbox, type LedgerSandbox } from '../src/index.js';
import { validateMirrorResponse } from '../../../test/support/mirrorSchema.js';

interface Party {
  id: AccountId;
  key: PrivateKey;
  client: Client;
}

describe('sandbox: token service (NFTs, mint, KYC, freeze, allowances) through the SDK and the mirror node', function () {
  this.timeout(60_000);
  let sandbox: LedgerSandbox;
  let operator: Client;
  let treasury: Party;
  let alice: Party;
  let bob: Party;
  const parties: Party[] = [];

  const clientFor = (id: AccountId, key: PrivateKey) =>
    Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(id, key);

  /** Signs with the extra keys, submits as `payer` and answers the receipt's status (a failed one's name). */
  async function run(tx: Transaction, payer: Client, ...keys: PrivateKey[]): Promise<{ status: string; receipt?: TransactionReceipt; response?: TransactionResponse }> {
    tx.freezeWith(payer);
    for (const k of keys) await tx.sign(k);
    const response = await tx.execute(payer);
    try {
      const receipt = await response.getReceipt(payer);
      return { status: receipt.status.toString(), receipt, response };
    } catch (err) {
      if (err instanceof ReceiptStatusError) return { status: err.status.toString() };
      throw err;
    }
  }

  async function party(hbar: number): Promise<Party> {
    const key = PrivateKey.generateECDSA();
    const { receipt } = await run(new AccountCreateTransaction().setKeyWithoutAlias(key.publicKey).setInitialBalance(new Hbar(hbar)), operator);
    const p = { id: receipt!.accountId!, key, client: clientFor(receipt!.accountId!, key) };
    parties.push(p);
    return p;
  }

  async function mirror(path: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${sandbox.mirrorUrl}${path}`);
    const body = await res.json();
    expect(validateMirrorResponse(path, 'get', res.status, body), path).to.deep.equal([]);
    return { status: res.status, body };
  }

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: 298, blockIntervalMs: 0 });
    operator = clientFor(AccountId.fromString(sandbox.operator.accountId), PrivateKey.fromStringDer(sandbox.operator.privateKey));
    treasury = await party(100);
    alice = await party(50);
    bob = await party(50);
  });
  after(async () => {
    for (const p of parties) p.client.close();
    operator?.close();
    await sandbox?.close();
  });

  describe('non-fungible tokens', () => {
    let nft: TokenId;
    const supplyKey = PrivateKey.generateED25519();

    before(async () => {
      const { status, receipt } = await run(
        new TokenCreateTransaction()
          .setTokenName('Sandbox Art')
          .setTokenSymbol('ART')
          .setTokenType(TokenType.NonFungibleUnique)
          .setSupplyType(TokenSupplyType.Finite)
          .setMaxSupply(3)
          .setTreasuryAccountId(treasury.id)
          .setSupplyKey(supplyKey.publicKey),
        treasury.client,
      );
      expect(status).to.equal('SUCCESS');
      nft = receipt!.tokenId!;
    });

    it('mints serials with their metadata, signed by the supply key, and reports them in the receipt', async () => {
      const { status, receipt } = await run(
        new TokenMintTransaction().setTokenId(nft).setMetadata([Buffer.from('first'), Buffer.from('second')]),
        treasury.client,
        supplyKey,
      );
      expect(status).to.equal('SUCCESS');
      expect(receipt!.serials.map(Number)).to.deep.equal([1, 2]);
      expect(receipt!.totalSupply!.toNumber()).to.equal(2);

      const one = await mirror(`/api/v1/tokens/${nft}/nfts/1`);
      expect(one.body).to.include({ account_id: treasury.id.toString(), serial_number: 1, token_id: nft.toString(), deleted: false });
      expect(Buffer.from(one.body.metadata, 'base64').toString()).to.equal('first');
      const info = await mirror(`/api/v1/tokens/${nft}`);
      expect(info.body).to.include({ type: 'NON_FUNGIBLE_UNIQUE', total_supply: '2', max_supply: '3', supply_type: 'FINITE', decimals: '0' });
      expect(info.body.supply_key).to.deep.equal({ _type: 'ED25519', key: supplyKey.publicKey.toStringRaw() });
    });

    it('refuses a mint without the supply key, a fungible amount, and one past the maximum supply', async () => {
      const unsigned = await run(new TokenMintTransaction().setTokenId(nft).setMetadata([Buffer.from('x')]), treasury.client).catch((e) => ({ status: e.status.toString() }));
      expect(unsigned.status).to.equal('INVALID_SIGNATURE');
      expect((await run(new TokenMintTransaction().setTokenId(nft).setAmount(5), treasury.client, supplyKey)).status).to.equal('INVALID_TOKEN_MINT_AMOUNT');
      const tooMany = [Buffer.from('a'), Buffer.from('b')];
      expect((await run(new TokenMintTransaction().setTokenId(nft).setMetadata(tooMany), treasury.client, supplyKey)).status).to.equal('TOKEN_MAX_SUPPLY_REACHED');
    });

    it('moves a serial to an associated account only, and lists it under the new owner', async () => {
      const send = () => new TransferTransaction().addNftTransfer(new NftId(nft, 1), treasury.id, alice.id);
      expect((await run(send(), treasury.client)).status).to.equal('TOKEN_NOT_ASSOCIATED_TO_ACCOUNT');
      expect((await run(new TokenAssociateTransaction().setAccountId(alice.id).setTokenIds([nft]), alice.client)).status).to.equal('SUCCESS');
      const sent = await run(send(), treasury.client);
      expect(sent.status).to.equal('SUCCESS');

      const owned = await mirror(`/api/v1/accounts/${alice.id}/nfts`);
      expect(owned.body.nfts.map((n: any) => [n.token_id, n.serial_number])).to.deep.equal([[nft.toString(), 1]]);
      const all = await mirror(`/api/v1/tokens/${nft}/nfts`);
      expect(all.body.nfts.map((n: any) => [n.serial_number, n.account_id])).to.deep.equal([
        [2, treasury.id.toString()],
        [1, alice.id.toString()],
      ]);
      const rel = await mirror(`/api/v1/accounts/${alice.id}/tokens`);
      expect(rel.body.tokens).to.deep.include({ ...rel.body.tokens[0], token_id: nft.toString(), balance: 1, kyc_status: 'NOT_APPLICABLE', freeze_status: 'NOT_APPLICABLE' });
      const record = await sent.response!.getRecord(treasury.client);
      expect(record.nftTransfers.get(nft)?.map((n) => [n.serial.toNumber(), n.sender.toString(), n.recipient.toString()])).to.deep.equal([
        [1, treasury.id.toString(), alice.id.toString()],
      ]);
      const txs = await mirror(`/api/v1/transactions?account.id=${treasury.id}&transactiontype=CRYPTOTRANSFER&order=desc&limit=1`);
      expect(txs.body.transactions[0].nft_transfers).to.deep.equal([
        { is_approval: false, receiver_account_id: alice.id.toString(), sender_account_id: treasury.id.toString(), serial_number: 1, token_id: nft.toString() },
      ]);
    });

    it('lets a spender approved for one serial move it, once, and an approved-for-all spender move any', async () => {
      expect((await run(new TokenAssociateTransaction().setAccountId(bob.id).setTokenIds([nft]), bob.client)).status).to.equal('SUCCESS');
      const approvedMove = (serial: number, from: Party) =>
        new TransferTransaction().addApprovedNftTransfer(new NftId(nft, serial), from.id, bob.id).setTransactionId(TransactionId.generate(bob.id));
      expect((await run(approvedMove(1, alice), bob.client)).status).to.equal('SPENDER_DOES_NOT_HAVE_ALLOWANCE');

      const approve = new AccountAllowanceApproveTransaction().approveTokenNftAllowance(new NftId(nft, 1), alice.id, bob.id);
      expect((await run(approve, alice.client)).status).to.equal('SUCCESS');
      expect((await mirror(`/api/v1/tokens/${nft}/nfts/1`)).body.spender).to.equal(bob.id.toString());
      expect((await run(approvedMove(1, alice), bob.client)).status).to.equal('SUCCESS');
      const moved = await mirror(`/api/v1/tokens/${nft}/nfts/1`);
      expect(moved.body).to.include({ account_id: bob.id.toString(), spender: null });

      const forAll = new AccountAllowanceApproveTransaction().approveTokenNftAllowanceAllSerials(nft, treasury.id, bob.id);
      expect((await run(forAll, treasury.client)).status).to.equal('SUCCESS');
      const listed = await mirror(`/api/v1/accounts/${treasury.id}/allowances/nfts`);
      expect(listed.body.allowances).to.have.length(1);
      expect(listed.body.allowances[0]).to.include({ approved_for_all: true, owner: treasury.id.toString(), spender: bob.id.toString(), token_id: nft.toString() });
      expect((await run(approvedMove(2, treasury), bob.client)).status).to.equal('SUCCESS');
    });
  });

  describe('KYC and freeze', () => {
    let token: TokenId;
    const kycKey = PrivateKey.generateED25519();
    const freezeKey = PrivateKey.generateED25519();
    const send = (amount: number) => new TransferTransaction().addTokenTransfer(token, treasury.id, -amount).addTokenTransfer(token, alice.id, amount);

    before(async () => {
      const { receipt } = await run(
        new TokenCreateTransaction()
          .setTokenName('Regulated')
          .setTokenSymbol('REG')
          .setDecimals(2)
          .setInitialSupply(1_000)
          .setTreasuryAccountId(treasury.id)
          .setKycKey(kycKey.publicKey)
          .setFreezeKey(freezeKey.publicKey)
          .setFreezeDefault(false),
        treasury.client,
      );
      token = receipt!.tokenId!;
      await run(new TokenAssociateTransaction().setAccountId(alice.id).setTokenIds([token]), alice.client);
    });

    it('refuses transfers to an account without KYC, and allows them once KYC is granted', async () => {
      expect((await run(send(10), treasury.client)).status).to.equal('ACCOUNT_KYC_NOT_GRANTED_FOR_TOKEN');
      expect((await mirror(`/api/v1/accounts/${alice.id}/tokens?token.id=${token}`)).body.tokens[0]).to.include({ kyc_status: 'REVOKED', freeze_status: 'UNFROZEN', balance: 0 });
      expect((await run(new TokenGrantKycTransaction().setTokenId(token).setAccountId(alice.id), treasury.client, kycKey)).status).to.equal('SUCCESS');
      expect((await run(send(10), treasury.client)).status).to.equal('SUCCESS');
      expect((await mirror(`/api/v1/accounts/${alice.id}/tokens?token.id=${token}`)).body.tokens[0]).to.include({ kyc_status: 'GRANTED', balance: 10 });
      expect((await run(new TokenRevokeKycTransaction().setTokenId(token).setAccountId(alice.id), treasury.client, kycKey)).status).to.equal('SUCCESS');
      expect((await run(send(1), treasury.client)).status).to.equal('ACCOUNT_KYC_NOT_GRANTED_FOR_TOKEN');
      await run(new TokenGrantKycTransaction().setTokenId(token).setAccountId(alice.id), treasury.client, kycKey);
    });

    it('refuses transfers of a frozen account until it is unfrozen', async () => {
      expect((await run(new TokenFreezeTransaction().setTokenId(token).setAccountId(alice.id), treasury.client, freezeKey)).status).to.equal('SUCCESS');
      expect((await run(send(1), treasury.client)).status).to.equal('ACCOUNT_FROZEN_FOR_TOKEN');
      expect((await mirror(`/api/v1/accounts/${alice.id}/tokens?token.id=${token}`)).body.tokens[0].freeze_status).to.equal('FROZEN');
      expect((await run(new TokenUnfreezeTransaction().setTokenId(token).setAccountId(alice.id), treasury.client, freezeKey)).status).to.equal('SUCCESS');
      expect((await run(send(1), treasury.client)).status).to.equal('SUCCESS');
    });

    it('answers TOKEN_NOT_ASSOCIATED_TO_ACCOUNT and TOKEN_HAS_NO_KYC_KEY where the network does', async () => {
      expect((await run(new TokenGrantKycTransaction().setTokenId(token).setAccountId(bob.id), treasury.client, kycKey)).status).to.equal('TOKEN_NOT_ASSOCIATED_TO_ACCOUNT');
      const { receipt } = await run(new TokenCreateTransaction().setTokenName('Plain').setTokenSymbol('PLN').setInitialSupply(1).setTreasuryAccountId(treasury.id), treasury.client);
      expect((await run(new TokenGrantKycTransaction().setTokenId(receipt!.tokenId!).setAccountId(treasury.id), treasury.client)).status).to.equal('TOKEN_HAS_NO_KYC_KEY');
    });

    it('mints fungible supply to the treasury and reports the new total', async () => {
      const supplyKey = PrivateKey.generateED25519();
      const created = await run(
        new TokenCreateTransaction().setTokenName('Mintable').setTokenSymbol('MNT').setInitialSupply(100).setTreasuryAccountId(treasury.id).setSupplyKey(supplyKey.publicKey),
        treasury.client,
      );
      const minted = await run(new TokenMintTransaction().setTokenId(created.receipt!.tokenId!).setAmount(50), treasury.client, supplyKey);
      expect(minted.status).to.equal('SUCCESS');
      expect(minted.receipt!.totalSupply!.toNumber()).to.equal(150);
      const balances = await mirror(`/api/v1/tokens/${created.receipt!.tokenId}/balances`);
      expect(balances.body.balances).to.deep.equal([{ account: treasury.id.toString(), balance: 150, decimals: 0 }]);
    });
  });

  describe('allowances', () => {
    let token: TokenId;

    before(async () => {
      const { receipt } = await run(
        new TokenCreateTransaction().setTokenName('Spendable').setTokenSymbol('SPD').setInitialSupply(1_000).setTreasuryAccountId(treasury.id),
        treasury.client,
      );
      token = receipt!.tokenId!;
      await run(new TokenAssociateTransaction().setAccountId(bob.id).setTokenIds([token]), bob.client);
    });

    it('lets a spender move hbar and tokens up to the allowance, and shows what remains', async () => {
      const approve = new AccountAllowanceApproveTransaction()
        .approveHbarAllowance(treasury.id, bob.id, Hbar.fromTinybars(1_000))
        .approveTokenAllowance(token, treasury.id, bob.id, 100);
      expect((await run(approve, treasury.client)).status).to.equal('SUCCESS');

      const spend = (hbar: number, tokens: number) =>
        new TransferTransaction()
          .addApprovedHbarTransfer(treasury.id, Hbar.fromTinybars(-hbar))
          .addHbarTransfer(bob.id, Hbar.fromTinybars(hbar))
          .addApprovedTokenTransfer(token, treasury.id, -tokens)
          .addTokenTransfer(token, bob.id, tokens)
          .setTransactionId(TransactionId.generate(bob.id));
      expect((await run(spend(400, 40), bob.client)).status).to.equal('SUCCESS');
      expect((await run(spend(400, 70), bob.client)).status).to.equal('AMOUNT_EXCEEDS_ALLOWANCE');

      const crypto = await mirror(`/api/v1/accounts/${treasury.id}/allowances/crypto`);
      expect(crypto.body.allowances).to.have.length(1);
      expect(crypto.body.allowances[0]).to.include({ amount: 600, amount_granted: 1_000, owner: treasury.id.toString(), spender: bob.id.toString() });
      const tokens = await mirror(`/api/v1/accounts/${treasury.id}/allowances/tokens`);
      expect(tokens.body.allowances).to.have.length(1);
      expect(tokens.body.allowances[0]).to.include({ amount: 60, amount_granted: 100, token_id: token.toString() });
      const bobTokens = await mirror(`/api/v1/accounts/${bob.id}/tokens?token.id=${token}`);
      expect(bobTokens.body.tokens[0].balance).to.equal(40);
      const account = await mirror(`/api/v1/accounts/${bob.id}`);
      expect(account.body.balance.tokens).to.deep.include({ token_id: token.toString(), balance: 40 });
      const listed = await mirror(`/api/v1/balances?account.id=${bob.id}`);
      expect(listed.body.balances[0].tokens).to.deep.include({ token_id: token.toString(), balance: 40 });
    });

    it('lists a native token transfer as the synthetic Transfer log the mirror node makes up', async () => {
      const sent = await run(new TransferTransaction().addTokenTransfer(token, treasury.id, -7).addTokenTransfer(token, bob.id, 7), treasury.client);
      expect(sent.status).to.equal('SUCCESS');
      const tx = sandbox.chain.transactions().at(-1)!;
      const logs = await mirror(`/api/v1/contracts/results/logs?timestamp=${tx.consensusTimestamp}`);
      const evm = (id: AccountId) => `0x${sandbox.chain.account(id.toString())!.evmAddress.slice(2).padStart(64, '0')}`;
      expect(logs.body.logs).to.have.length(1);
      expect(logs.body.logs[0]).to.include({
        address: `0x${token.num.toString(16).padStart(40, '0')}`,
        contract_id: token.toString(),
        root_contract_id: token.toString(),
        data: `0x${(7).toString(16).padStart(64, '0')}`,
        // As the importer writes a synthetic log: the first 32 bytes of the ledger's hash, an empty bloom, and the
        // transaction's slot among the block's EVM transactions (its own block has no other).
        transaction_hash: tx.hash.slice(0, 66),
        bloom: '0x00',
        transaction_index: 0,
        block_number: tx.blockNumber,
      });
      expect(logs.body.logs[0].topics).to.deep.equal([
        '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
        evm(treasury.id),
        evm(bob.id),
      ]);
      // Found by either hash, and under the token by its id or its long-zero address, as the real node files it.
      for (const hash of [tx.hash, tx.hash.slice(0, 66)]) {
        expect((await mirror(`/api/v1/contracts/results/logs?transaction.hash=${hash}`)).body.logs, hash).to.deep.equal(logs.body.logs);
      }
      for (const name of [token.toString(), `0x${token.num.toString(16).padStart(40, '0')}`]) {
        const byToken = await mirror(`/api/v1/contracts/${name}/results/logs?timestamp=${tx.consensusTimestamp}`);
        expect(byToken.body.logs, name).to.deep.equal(logs.body.logs);
      }
    });

    it('lists a native fungible transfer among contract results as a synthetic row, as v0.158 on do', async () => {
      const sent = await run(new TransferTransaction().addTokenTransfer(token, treasury.id, -3).addTokenTransfer(token, bob.id, 3), treasury.client);
      expect(sent.status).to.equal('SUCCESS');
      const tx = sandbox.chain.transactions().at(-1)!;
      const longZero = (num: { toString(radix: number): string }) => `0x${num.toString(16).padStart(40, '0')}`;
      const inBlock = await mirror(`/api/v1/contracts/results?block.number=${tx.blockNumber}`);
      expect(inBlock.body.results).to.have.length(1);
      // The row issue #13766 quotes, sent by the payer (PR #13774), with v0.157's fallbacks for type, chain and gas price.
      expect(inBlock.body.results[0]).to.deep.equal({
        access_list: [],
        address: longZero(token.num),
        amount: null,
        block_gas_used: sandbox.chain.blockByNumber(tx.blockNumber)!.gasUsed,
        block_hash: sandbox.chain.blockByNumber(tx.blockNumber)!.hash,
        block_number: tx.blockNumber,
        bloom: '0x',
        call_result: '0x',
        chain_id: '0x12a',
        contract_id: token.toString(),
        created_contract_ids: [],
        error_message: null,
        failed_initcode: null,
        from: longZero(treasury.id.num),
        function_parameters: '0x',
        gas_consumed: null,
        gas_limit: 0,
        gas_price: `0x${sandbox.chain.gasPriceTinybar().toString(16)}`,
        gas_used: null,
        hash: tx.hash.slice(0, 66),
        max_fee_per_gas: null,
        max_priority_fee_per_gas: null,
        nonce: null,
        r: null,
        result: 'SUCCESS',
        s: null,
        status: '0x1',
        timestamp: tx.consensusTimestamp,
        to: longZero(token.num),
        transaction_index: 0,
        type: 0,
        v: null,
      });
      const logs = await mirror(`/api/v1/contracts/results/logs?timestamp=${tx.consensusTimestamp}`);
      expect(logs.body.logs.map((l: any) => [l.transaction_hash, l.transaction_index])).to.deep.equal([[tx.hash.slice(0, 66), 0]]);
      // The same row by timestamp and by its payer; its gas price in weibar with hbar=false.
      const byTime = await mirror(`/api/v1/contracts/results?timestamp=${tx.consensusTimestamp}&hbar=false`);
      expect(byTime.body.results.map((r: any) => [r.hash, r.gas_price])).to.deep.equal([[tx.hash.slice(0, 66), `0x${(BigInt(sandbox.chain.gasPriceTinybar()) * 10n ** 10n).toString(16)}`]]);
      const byPayer = await mirror(`/api/v1/contracts/results?from=${treasury.id}&timestamp=${tx.consensusTimestamp}`);
      expect(byPayer.body.results.map((r: any) => r.hash)).to.deep.equal([tx.hash.slice(0, 66)]);
      // Not before v0.164 (PRs #14290, #14305): in the token's own listing, or looked up on its own.
      expect((await mirror(`/api/v1/contracts/${token}/results`)).body.results).to.deep.equal([]);
      expect((await mirror(`/api/v1/contracts/results/${tx.hash.slice(0, 66)}`)).status).to.equal(404);
    });

    it('gives a native transaction that moved only NFTs no contract result before v0.162 (issue #14034), only its logs', async () => {
      const nftMove = sandbox.chain.transactions().find((t) => t.name === 'CRYPTOTRANSFER' && (t.nftTransfers?.length ?? 0) > 0 && (t.tokenTransfers?.length ?? 0) === 0)!;
      expect(nftMove, 'an NFT transfer earlier in the run').to.not.equal(undefined);
      expect((await mirror(`/api/v1/contracts/results/logs?timestamp=${nftMove.consensusTimestamp}`)).body.logs).to.have.length(1);
      expect((await mirror(`/api/v1/contracts/results?timestamp=${nftMove.consensusTimestamp}`)).body.results).to.deep.equal([]);
    });

    it('answers SPENDER_DOES_NOT_HAVE_ALLOWANCE to a spender nobody approved', async () => {
      const steal = new TransferTransaction()
        .addApprovedTokenTransfer(token, treasury.id, -1)
        .addTokenTransfer(token, alice.id, 1)
        .setTransactionId(TransactionId.generate(alice.id));
      await run(new TokenAssociateTransaction().setAccountId(alice.id).setTokenIds([token]), alice.client);
      expect((await run(steal, alice.client)).status).to.equal('SPENDER_DOES_NOT_HAVE_ALLOWANCE');
    });

    it('refuses an allowance on a token the owner is not associated with', async () => {
      const approve = new AccountAllowanceApproveTransaction().approveTokenAllowance(token, alice.id, treasury.id, 5);
      const { receipt } = await run(new TokenCreateTransaction().setTokenName('Other').setTokenSymbol('OTH').setInitialSupply(5).setTreasuryAccountId(treasury.id), treasury.client);
      const other = new AccountAllowanceApproveTransaction().approveTokenAllowance(receipt!.tokenId!, alice.id, treasury.id, 5);
      expect((await run(approve, alice.client)).status).to.equal('SUCCESS');
      expect((await run(other, alice.client)).status).to.equal('TOKEN_NOT_ASSOCIATED_TO_ACCOUNT');
    });
  });
});
