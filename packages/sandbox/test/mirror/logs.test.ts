import { expect } from 'chai';
import { zeroPadValue } from 'ethers';
import { buildFixture, type Fixture } from './fixture.js';

describe('sandbox mirror node: contract logs', function () {
  let f: Fixture;
  let topic0: string;
  before(async () => {
    f = await buildFixture();
    topic0 = f.abi.getEvent('Incremented')!.topicHash;
  });
  after(() => f?.close());

  it('lists every log newest first with block, transaction and timestamp', async () => {
    const { body } = await f.call('/api/v1/contracts/results/logs');
    expect(body.logs).to.have.length(3);
    const newest = body.logs[0];
    expect(newest.transaction_hash).to.equal(f.increments[2].ethHash);
    expect(newest.timestamp).to.equal(f.increments[2].consensusTimestamp);
    expect(newest.block_hash).to.equal(f.blocks.last.hash);
    expect(newest.block_number).to.equal(3);
    expect(newest.root_contract_id).to.equal(f.contract.id);
    expect(newest.index).to.equal(0);
  });

  it('numbers each log by its position in the block, across the block’s transactions, in listings and results alike', async () => {
    const [inc1, inc2] = f.increments;
    const range = `timestamp=gte:${f.blocks.calls.timestampFrom}&timestamp=lte:${f.blocks.calls.timestampTo}&order=asc`;
    const { body } = await f.call(`/api/v1/contracts/results/logs?${range}`);
    expect(body.logs.map((l: any) => [l.transaction_index, l.index])).to.deep.equal([
      [inc1.index, 0],
      [inc2.index, 1],
    ]);
    const result = await f.call(`/api/v1/contracts/results/${inc2.ethHash}`);
    expect(result.body.logs.map((l: any) => l.index)).to.deep.equal([1]);
    // The pagination cursor is (timestamp, index), so it still resumes after the second log of the block.
    const page = await f.call(`/api/v1/contracts/results/logs?${range}&limit=1`);
    expect(page.body.links.next).to.include(`timestamp=gte:${inc1.consensusTimestamp}&index=gt:0`);
  });

  it('filters on topics (alternatives within one topic, all topics together) inside a timestamp range', async () => {
    const range = `timestamp=gte:${f.blocks.deploy.timestampFrom}&timestamp=lte:${f.blocks.last.timestampTo}`;
    const byBob = zeroPadValue(f.bob.address, 32).toLowerCase();
    const byAlice = zeroPadValue(f.alice.address, 32).toLowerCase();
    const bob = await f.call(`/api/v1/contracts/results/logs?${range}&topic0=${topic0}&topic1=${byBob}`);
    expect(bob.body.logs.map((l: any) => l.transaction_hash)).to.deep.equal([f.increments[2].ethHash]);
    const either = await f.call(`/api/v1/contracts/results/logs?${range}&topic1=${byBob}&topic1=${byAlice}&order=asc`);
    expect(either.body.logs).to.have.length(3);
    // Short topics are left-padded to 32 bytes, as the real node reads them.
    const second = await f.call(`/api/v1/contracts/${f.contract.id}/results/logs?${range}&topic2=0x2`);
    expect(second.body.logs.map((l: any) => l.transaction_hash)).to.deep.equal([f.increments[1].ethHash]);
    const none = await f.call(`/api/v1/contracts/results/logs?${range}&topic0=0x${'00'.repeat(32)}`);
    expect(none.body).to.deep.equal({ logs: [], links: { next: null } });
  });

  it('pages on timestamp and index, resuming after the last log seen', async () => {
    const first = await f.call('/api/v1/contracts/results/logs?limit=1&order=asc');
    const t = f.increments[0].consensusTimestamp;
    expect(first.body.links.next).to.equal(`/api/v1/contracts/results/logs?limit=1&order=asc&timestamp=gte:${t}&index=gt:0`);
    const seen = [first.body.logs[0].transaction_hash];
    let next: string | null = first.body.links.next;
    while (next) {
      const page: { body: any } = await f.call(next);
      seen.push(...page.body.logs.map((l: any) => l.transaction_hash));
      next = page.body.links.next;
    }
    expect(seen).to.deep.equal(f.increments.map((i) => i.ethHash));
  });

  it('finds logs by transaction hash and by contract address', async () => {
    const byHash = await f.call(`/api/v1/contracts/results/logs?transaction.hash=${f.increments[1].ethHash}`);
    expect(byHash.body.logs).to.have.length(1);
    const byLedgerHash = await f.call(`/api/v1/contracts/results/logs?transaction.hash=${f.increments[1].hash}`);
    expect(byLedgerHash.body.logs).to.deep.equal(byHash.body.logs);
    const byAddress = await f.call(`/api/v1/contracts/${f.contract.address}/results/logs`);
    expect(byAddress.body.logs).to.have.length(3);
  });

  it('answers an empty page for an unknown contract (as the current node does) and 400 for bad filters', async () => {
    const unknown = await f.call(`/api/v1/contracts/0x${'77'.repeat(20)}/results/logs`);
    expect(unknown).to.deep.equal({ status: 200, body: { logs: [], links: { next: null } } });
    const bad = await f.call('/api/v1/contracts/results/logs?topic0=0xnothex&timestamp=lt:x&index=1');
    expect(bad.status).to.equal(400);
    expect(bad.body._status.messages.map((m: any) => m.message)).to.deep.equal(['Invalid parameter: topic0', 'Invalid parameter: timestamp']);
  });
});
