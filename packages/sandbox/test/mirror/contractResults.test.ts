import { expect } from 'chai';
import { longZeroAddress } from '../../src/ledger/ids.js';
import { buildFixture, type Fixture } from './fixture.js';

describe('sandbox mirror node: contract results', function () {
  let f: Fixture;
  before(async () => {
    f = await buildFixture();
  });
  after(() => f?.close());

  /** Seven Ethereum transactions; the one refused for its nonce is left out of listings, as the real node does. */
  const listedCount = 6;

  it('lists every Ethereum transaction but the WRONG_NONCE one, newest first, with ledger and EVM details joined', async () => {
    const { status, body } = await f.call('/api/v1/contracts/results');
    expect(status).to.equal(200);
    expect(body.results).to.have.length(listedCount);
    expect(body.results.map((r: any) => r.hash)).to.not.include(f.wrongNonce.ethHash);
    expect(body.results[0].hash).to.equal(f.increments[2].ethHash);
    const transfer = body.results.find((r: any) => r.hash === f.transfer.ethHash);
    // 5 HBAR in tinybar, as an integer.
    expect(transfer.amount).to.equal(500_000_000);
    expect(transfer.block_hash).to.equal(f.blocks.deploy.hash);
    // As the real node names them: the sender by its account's long-zero address, the recipient as signed.
    expect(transfer.from).to.equal(longZeroAddress(f.chain.account(f.alice.address.toLowerCase())!.num));
    expect(transfer.to).to.equal(f.bob.address.toLowerCase());
    expect(transfer.status).to.equal('0x1');
    expect(transfer).to.not.have.property('logs');
  });

  it('filters by block.number (decimal or hex), block.hash (48 or 32 bytes) and timestamp', async () => {
    const inBlock2 = [f.increments[0], f.increments[1], f.revert].map((t) => t.ethHash).reverse();
    for (const query of ['block.number=2', 'block.number=0x2', `block.hash=${f.blocks.calls.hash}`, `block.hash=eq:${f.blocks.calls.hash.slice(0, 66)}`]) {
      const { body } = await f.call(`/api/v1/contracts/results?${query}`);
      expect(body.results.map((r: any) => r.hash), query).to.deep.equal(inBlock2);
    }
    const { body } = await f.call(`/api/v1/contracts/results?timestamp=gte:${f.increments[1].consensusTimestamp}&timestamp=lte:${f.revert.consensusTimestamp}&order=asc`);
    expect(body.results.map((r: any) => r.hash)).to.deep.equal([f.increments[1].ethHash, f.revert.ethHash]);
    const bob = f.chain.account(f.bob.address.toLowerCase())!;
    for (const name of [f.bob.address, bob.id, longZeroAddress(bob.num)]) {
      const bySender = await f.call(`/api/v1/contracts/results?from=${name}`);
      expect(bySender.body.results.map((r: any) => r.from), name).to.deep.equal([longZeroAddress(bob.num), longZeroAddress(bob.num)]);
    }
  });

  it('pages through links.next until every result has been seen once', async () => {
    const seen: string[] = [];
    let next: string | null = '/api/v1/contracts/results?limit=3&order=asc';
    while (next) {
      const page: { body: any } = await f.call(next);
      seen.push(...page.body.results.map((r: any) => r.hash));
      next = page.body.links.next;
      if (next) expect(next).to.match(/^\/api\/v1\/contracts\/results\?limit=3&order=asc&timestamp=gt:\d+\.\d{9}$/);
    }
    expect(seen).to.have.length(listedCount);
    expect(new Set(seen).size).to.equal(listedCount);
  });

  it('gives a deployment its created contract, call result and init code', async () => {
    const { body } = await f.call(`/api/v1/contracts/results/${f.deploy.ethHash}`);
    expect(body.contract_id).to.equal(f.contract.id);
    expect(body.created_contract_ids).to.deep.equal([f.contract.id]);
    expect(body.address).to.equal(f.contract.address);
    // A creation names no recipient; the real node then gives the created contract's long-zero address.
    expect(body.to).to.equal(longZeroAddress(f.chain.account(f.contract.id)!.num));
    const code = await f.chain.evm.request({ method: 'eth_getCode', params: [f.contract.address, 'latest'] });
    expect(body.call_result).to.equal(code);
    expect(body.block_hash).to.have.length(98);
    expect(body.hash).to.have.length(66);
  });

  it('gives a call its logs, fee fields in tinybar and the signature', async () => {
    const { body } = await f.call(`/api/v1/contracts/results/${f.increments[0].ethHash}`);
    expect(body.result).to.equal('SUCCESS');
    expect(body.type).to.equal(2);
    // 710 gwei max fee = 71 tinybar.
    expect(body.max_fee_per_gas).to.equal('0x47');
    expect(body.gas_price).to.equal('0x');
    expect(body.r).to.match(/^0x[0-9a-f]{64}$/);
    expect(body.logs).to.have.length(1);
    const [log] = body.logs;
    expect(log.address).to.equal(f.contract.address);
    expect(log.contract_id).to.equal(f.contract.id);
    expect(log.topics[0]).to.equal(f.abi.getEvent('Incremented')!.topicHash);
    expect(log.topics[2]).to.equal(`0x${'1'.padStart(64, '0')}`);
    expect(f.abi.decodeEventLog('Incremented', log.data, log.topics).note).to.equal('hello');
  });

  it('reports a revert with its status, revert data and the ledger result', async () => {
    const { body } = await f.call(`/api/v1/contracts/results/${f.revert.ethHash}`);
    expect(body.result).to.equal('CONTRACT_REVERT_EXECUTED');
    expect(body.status).to.equal('0x0');
    expect(body.error_message).to.equal(body.call_result).and.match(/^0x08c379a0/);
    expect(f.abi.parseError(body.error_message)?.args[0]).to.equal('value too large');
  });

  it('keeps a transaction the ledger refused before execution, without EVM details', async () => {
    const { body } = await f.call(`/api/v1/contracts/results/${f.wrongNonce.ethHash}`);
    expect(body.result).to.equal('WRONG_NONCE');
    expect(body.status).to.equal('0x0');
    expect(body.logs).to.deep.equal([]);
  });

  it('finds a result by transaction id, and by contract and consensus timestamp', async () => {
    const byId = await f.call(`/api/v1/contracts/results/${f.increments[1].transactionId.replace(/-(\d+)$/, (_, n) => `-${n.padStart(9, '0')}`)}`);
    expect(byId.body.hash).to.equal(f.increments[1].ethHash);
    const byTimestamp = await f.call(`/api/v1/contracts/${f.contract.id}/results/${f.increments[1].consensusTimestamp}`);
    expect(byTimestamp.body.hash).to.equal(f.increments[1].ethHash);
    const byAddress = await f.call(`/api/v1/contracts/${f.contract.address.slice(2)}/results?limit=100`);
    expect(byAddress.body.results).to.have.length(5);
  });

  it('answers 404 for unknown transactions and for a timestamp of another contract', async () => {
    expect((await f.call(`/api/v1/contracts/results/0x${'12'.repeat(32)}`)).status).to.equal(404);
    expect((await f.call('/api/v1/contracts/results/0.0.2-1-000000001')).status).to.equal(404);
    expect((await f.call(`/api/v1/contracts/results/${f.deploy.ethHash}?nonce=1`)).status).to.equal(404);
    const other = await f.call(`/api/v1/contracts/${f.contract.id}/results/${f.transfer.consensusTimestamp}`);
    expect(other.status).to.equal(404);
    expect(other.body._status.messages[0].message).to.equal('Not found');
    expect((await f.call(`/api/v1/contracts/0.0.999999/results/${f.deploy.consensusTimestamp}`)).status).to.equal(404);
  });

  it('answers 400 with the real node messages for bad filters', async () => {
    const { status, body } = await f.call(
      `/api/v1/contracts/results?block.hash=gte:${f.blocks.calls.hash}&block.number=gt:10&transaction.index=lt:1&index=3`,
    );
    expect(status).to.equal(400);
    expect(body._status.messages.map((m: any) => m.message)).to.deep.equal([
      'Invalid parameter: block.hash',
      'Invalid parameter: block.number',
      'Invalid parameter: transaction.index',
      'Unknown query parameter: index',
    ]);
    const badHash = await f.call('/api/v1/contracts/results/0x1234');
    expect(badHash.status).to.equal(400);
    expect(badHash.body._status.messages[0].message).to.equal('Invalid parameter: transactionIdOrHash');
    expect((await f.call('/api/v1/contracts/results?timestamp=gte:yesterday')).status).to.equal(400);
    expect((await f.call(`/api/v1/contracts/${f.contract.id}/results/notatime`)).status).to.equal(400);
  });
});
