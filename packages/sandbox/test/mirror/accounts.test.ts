import { expect } from 'chai';
import { buildFixture, type Fixture } from './fixture.js';

/** RFC 4648 base32 without padding, the mirror node's spelling of account aliases. */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  return (bits.match(/.{1,5}/g) ?? []).map((chunk) => alphabet[parseInt(chunk.padEnd(5, '0'), 2)]).join('');
}

/** Every sandbox account starts with 10,000 HBAR. */
const START_TINYBAR = 1_000_000_000_000;

describe('sandbox mirror node: accounts, balances, transactions, contracts, network', function () {
  let f: Fixture;
  let alice: string;
  let bob: string;
  before(async () => {
    f = await buildFixture();
    alice = f.chain.account(f.alice.address.toLowerCase())!.id;
    bob = f.chain.account(f.bob.address.toLowerCase())!.id;
  });
  after(() => f?.close());

  describe('/accounts/{idOrAliasOrEvmAddress}', () => {
    it('gives the balance in tinybar, the nonce, the key and the transactions, by id or EVM address', async () => {
      const byAddress = await f.call(`/api/v1/accounts/${f.alice.address}`);
      expect(byAddress.status).to.equal(200);
      expect(byAddress.body.account).to.equal(alice);
      expect(byAddress.body.balance.balance).to.equal(Number(await f.chain.balanceTinybar(f.chain.account(alice)!)));
      expect(byAddress.body.ethereum_nonce).to.equal(4);
      expect(byAddress.body.key._type).to.equal('ECDSA_SECP256K1');
      expect(byAddress.body.evm_address).to.equal(f.alice.address.toLowerCase());
      expect(byAddress.body.transactions.map((t: any) => t.consensus_timestamp)).to.deep.equal(
        [f.deploy, f.transfer, f.increments[0], f.increments[1]].map((t) => t.consensusTimestamp).reverse(),
      );
      for (const name of [alice, alice.replace('0.0.', ''), f.alice.address.slice(2)]) {
        const { body } = await f.call(`/api/v1/accounts/${name}?transactions=false`);
        expect(body.account, name).to.equal(alice);
        expect(body.transactions).to.deep.equal([]);
      }
    });

    it('finds an account by its alias: the base32 of its ECDSA key or of its EVM address', async () => {
      const key = Buffer.from(f.chain.account(alice)!.publicKey!.slice(2), 'hex');
      for (const alias of [base32(Buffer.concat([Buffer.from([0x3a, 0x21]), key])), base32(Buffer.from(f.alice.address.slice(2), 'hex'))]) {
        const { status, body } = await f.call(`/api/v1/accounts/${alias}?transactions=false`);
        expect(status, alias).to.equal(200);
        expect(body.account).to.equal(alice);
      }
    });

    it('gives the balance and nonce as of a past timestamp', async () => {
      const genesis = f.chain.blocks()[0];
      const before = await f.call(`/api/v1/accounts/${bob}?timestamp=lte:${genesis.timestampTo}`);
      expect(before.body.balance).to.deep.equal({ balance: START_TINYBAR, timestamp: genesis.timestampTo, tokens: [] });
      expect(before.body.ethereum_nonce).to.equal(0);
      expect(before.body.transactions).to.deep.equal([]);
      const afterTransfer = await f.call(`/api/v1/accounts/${bob}?timestamp=lte:${f.blocks.deploy.timestampTo}`);
      expect(afterTransfer.body.balance.balance).to.equal(START_TINYBAR + 500_000_000);
    });

    it('pages its transactions with links.next', async () => {
      const first = await f.call(`/api/v1/accounts/${alice}?limit=3`);
      expect(first.body.transactions).to.have.length(3);
      expect(first.body.links.next).to.equal(`/api/v1/accounts/${alice}?limit=3&timestamp=lt:${f.transfer.consensusTimestamp}`);
      const second = await f.call(first.body.links.next);
      expect(second.body.transactions.map((t: any) => t.consensus_timestamp)).to.deep.equal([f.deploy.consensusTimestamp]);
    });

    it('answers 404 for an unknown account and 400 for a malformed one', async () => {
      expect((await f.call('/api/v1/accounts/0.0.987654')).status).to.equal(404);
      expect((await f.call(`/api/v1/accounts/0x${'42'.repeat(20)}`)).status).to.equal(404);
      const bad = await f.call('/api/v1/accounts/not-an-account');
      expect(bad.status).to.equal(400);
      expect(bad.body._status.messages[0].message).to.equal('Invalid parameter: idOrAliasOrEvmAddress');
    });
  });

  describe('/balances', () => {
    it('lists balances by account, now and as of a timestamp', async () => {
      const now = await f.call(`/api/v1/balances?account.id=${bob}`);
      expect(now.body.balances).to.deep.equal([{ account: bob, balance: Number(await f.chain.balanceTinybar(f.chain.account(bob)!)), tokens: [] }]);
      expect(now.body.timestamp).to.equal(f.blocks.last.timestampTo);
      const then = await f.call(`/api/v1/balances?account.id=${bob}&timestamp=${f.blocks.deploy.timestampTo}`);
      expect(then.body.balances[0].balance).to.equal(START_TINYBAR + 500_000_000);
      const byAddress = await f.call(`/api/v1/balances?account.id=${f.bob.address}`);
      expect(byAddress.body.balances[0].account).to.equal(bob);
    });

    it('pages by account id and filters by balance', async () => {
      const first = await f.call(`/api/v1/balances?account.id=gte:${alice}&account.id=lte:${bob}&order=asc&limit=1`);
      expect(first.body.balances.map((b: any) => b.account)).to.deep.equal([alice]);
      // The moving bound (gte) gives way to the page's last id; the fixed one (lte) stays.
      expect(first.body.links.next).to.equal(`/api/v1/balances?account.id=lte:${bob}&order=asc&limit=1&account.id=gt:${alice}`);
      const second = await f.call(first.body.links.next);
      expect(second.body.balances.map((b: any) => b.account)).to.deep.equal([bob]);
      const rich = await f.call(`/api/v1/balances?account.balance=gt:${START_TINYBAR}`);
      expect(rich.body.balances.map((b: any) => b.account)).to.include(bob).and.not.include(alice);
    });

    it('answers 400 for a bad filter', async () => {
      const { status, body } = await f.call('/api/v1/balances?account.balance=lots&timestamp=gt:1');
      expect(status).to.equal(400);
      expect(body._status.messages.map((m: any) => m.message)).to.deep.equal(['Invalid parameter: account.balance', 'Invalid parameter: timestamp']);
    });
  });

  describe('/transactions', () => {
    it('lists ledger transactions with 48-byte hashes, fees and transfers in tinybar', async () => {
      const { body } = await f.call('/api/v1/transactions');
      expect(body.transactions).to.have.length(f.chain.transactions().length);
      const transfer = body.transactions.find((t: any) => t.consensus_timestamp === f.transfer.consensusTimestamp);
      expect(Buffer.from(transfer.transaction_hash, 'base64').toString('hex')).to.equal(f.transfer.hash.slice(2)).and.have.length(96);
      expect(transfer.name).to.equal('ETHEREUMTRANSACTION');
      expect(transfer.transaction_id).to.match(new RegExp(`^${f.chain.operator.accountId.replaceAll('.', '\\.')}-\\d+-\\d{9}$`));
      expect(transfer.transfers).to.deep.include({ account: bob, amount: 500_000_000, is_approval: false });
      expect(transfer.charged_tx_fee).to.equal(f.transfer.chargedTxFeeTinybar);
    });

    it('filters by account, result, credit or debit and transaction type', async () => {
      const bobs = await f.call(`/api/v1/transactions?account.id=${bob}`);
      expect(bobs.body.transactions).to.have.length(3);
      const credits = await f.call(`/api/v1/transactions?account.id=${bob}&type=credit`);
      expect(credits.body.transactions.map((t: any) => t.consensus_timestamp)).to.deep.equal([f.transfer.consensusTimestamp]);
      const failed = await f.call('/api/v1/transactions?result=fail&order=asc');
      expect(failed.body.transactions.map((t: any) => t.result)).to.deep.equal(['CONTRACT_REVERT_EXECUTED', 'WRONG_NONCE']);
      const none = await f.call('/api/v1/transactions?transactiontype=cryptotransfer');
      expect(none.body.transactions).to.deep.equal([]);
    });

    it('answers 400 for an unknown transaction type or result', async () => {
      const { status, body } = await f.call('/api/v1/transactions?transactiontype=TELEPORT&result=maybe');
      expect(status).to.equal(400);
      expect(body._status.messages.map((m: any) => m.message)).to.deep.equal(['Invalid parameter: transactiontype', 'Invalid parameter: result']);
    });
  });

  describe('/contracts/{contractIdOrAddress}', () => {
    it('gives the contract with its init code and runtime code, by id or address', async () => {
      const code = await f.chain.evm.request({ method: 'eth_getCode', params: [f.contract.address, 'latest'] });
      for (const name of [f.contract.id, f.contract.address, `0.0.${f.contract.address.slice(2)}`]) {
        const { status, body } = await f.call(`/api/v1/contracts/${name}`);
        expect(status, name).to.equal(200);
        expect(body.contract_id).to.equal(f.contract.id);
        expect(body.evm_address).to.equal(f.contract.address);
        expect(body.runtime_bytecode).to.equal(code);
        expect(body.nonce).to.equal(1);
      }
      const { body } = await f.call(`/api/v1/contracts/${f.contract.id}`);
      const deployment = await f.chain.evm.request({ method: 'eth_getTransactionByHash', params: [f.deploy.ethHash] });
      expect(body.bytecode).to.equal((deployment as { input: string }).input);
    });

    it('answers 404 for an account that is not a contract or a time before creation, 400 for a bad id', async () => {
      expect((await f.call(`/api/v1/contracts/${alice}`)).status).to.equal(404);
      expect((await f.call(`/api/v1/contracts/${f.contract.id}?timestamp=lt:${f.chain.blocks()[0].timestampTo}`)).status).to.equal(404);
      const bad = await f.call('/api/v1/contracts/0xzz');
      expect(bad.status).to.equal(400);
      expect(bad.body._status.messages[0].message).to.equal('Invalid parameter: contractIdOrAddress');
    });
  });

  describe('/network', () => {
    it('gives the gas price in tinybar for each fee type, in either order', async () => {
      const asc = await f.call('/api/v1/network/fees');
      expect(asc.body.fees).to.deep.equal([
        { gas: 71, transaction_type: 'ContractCall' },
        { gas: 71, transaction_type: 'ContractCreate' },
        { gas: 71, transaction_type: 'EthereumTransaction' },
      ]);
      const desc = await f.call('/api/v1/network/fees?order=DESC');
      expect(desc.body.fees.map((fee: any) => fee.transaction_type)).to.deep.equal(['EthereumTransaction', 'ContractCreate', 'ContractCall']);
      expect((await f.call('/api/v1/network/fees?limit=1')).status).to.equal(400);
    });

    it('gives the exchange rate, expiring on the hour', async () => {
      const { body } = await f.call('/api/v1/network/exchangerate');
      expect(body.current_rate).to.include({ cent_equivalent: 596_987, hbar_equivalent: 30_000 });
      expect(body.current_rate.expiration_time % 3600).to.equal(0);
      expect(body.next_rate.expiration_time).to.equal(body.current_rate.expiration_time + 3600);
      expect((await f.call('/api/v1/network/exchangerate?timestamp=soon')).status).to.equal(400);
    });
  });

  it('answers HEAD wherever it answers GET: the same status and length, no body', async () => {
    const get = await fetch(`${f.mirror.url}/api/v1/accounts/${alice}`);
    const head = await fetch(`${f.mirror.url}/api/v1/accounts/${alice}`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-length')).to.equal(get.headers.get('content-length'));
    expect(await head.text()).to.equal('');
    expect((await fetch(`${f.mirror.url}/api/v1/nothing`, { method: 'HEAD' })).status).to.equal(404);
  });

  it('answers 404 Not found for a path the mirror node does not serve', async () => {
    const res = await fetch(`${f.mirror.url}/api/v1/nothing`);
    expect(res.status).to.equal(404);
    expect(await res.json()).to.deep.equal({ _status: { messages: [{ message: 'Not found' }] } });
  });
});
