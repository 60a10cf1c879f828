import { expect } from 'chai';
import { buildFixture, type Fixture } from './fixture.js';

describe('sandbox mirror node: blocks', function () {
  let f: Fixture;
  before(async () => {
    f = await buildFixture();
  });
  after(() => f?.close());

  it('lists blocks newest first with 48-byte hashes and record-file timestamps', async () => {
    const { status, body } = await f.call('/api/v1/blocks');
    expect(status).to.equal(200);
    expect(body.blocks.map((b: any) => b.number)).to.deep.equal([3, 2, 1, 0]);
    const calls = body.blocks[1];
    expect(calls.hash).to.equal(f.blocks.calls.hash).and.match(/^0x[0-9a-f]{96}$/);
    expect(calls.previous_hash).to.equal(f.blocks.deploy.hash);
    expect(calls.count).to.equal(4);
    expect(calls.timestamp.from).to.match(/^\d{10}\.\d{9}$/);
    expect(body.links.next).to.equal(null);
    // The consensus node version the sandbox follows; the official relay gives blocks from 0.69 on a 150M gas limit.
    expect(new Set(body.blocks.map((b: any) => b.hapi_version))).to.deep.equal(new Set(['0.77.0']));
  });

  it('pages with limit and a relative links.next, like the real node', async () => {
    const first = await f.call('/api/v1/blocks?limit=2');
    expect(first.body.blocks.map((b: any) => b.number)).to.deep.equal([3, 2]);
    expect(first.body.links.next).to.equal('/api/v1/blocks?limit=2&block.number=lt:2');
    const second = await f.call(first.body.links.next);
    expect(second.body.blocks.map((b: any) => b.number)).to.deep.equal([1, 0]);
    const third = await f.call(second.body.links.next);
    expect(third.body).to.deep.equal({ blocks: [], links: { next: null } });
    // Like the real node, a limit above 100 is capped rather than refused.
    const capped = await f.call('/api/v1/blocks?limit=1000');
    expect(capped.status).to.equal(200);
    expect(capped.body.blocks).to.have.length(4);
  });

  it('filters on block.number and on timestamp (the end of each block) with operators', async () => {
    const range = await f.call('/api/v1/blocks?block.number=gte:1&block.number=lt:3&order=asc');
    expect(range.body.blocks.map((b: any) => b.number)).to.deep.equal([1, 2]);
    const byTime = await f.call(`/api/v1/blocks?timestamp=lte:${f.blocks.calls.timestampTo}&order=desc&limit=1`);
    expect(byTime.body.blocks[0].number).to.equal(2);
  });

  it('takes a 0x hex block.number as the real node does (the official relay\'s new-block filter sends one)', async () => {
    const hex = await f.call('/api/v1/blocks?block.number=gt:0x1&order=asc');
    expect(hex.status).to.equal(200);
    expect(hex.body.blocks.map((b: any) => b.number)).to.deep.equal([2, 3]);
    expect((await f.call('/api/v1/blocks?block.number=0x2')).body.blocks.map((b: any) => b.number)).to.deep.equal([2]);
    expect((await f.call('/api/v1/blocks?block.number=gt:0xzz')).status).to.equal(400);
  });

  it('finds a block by number, by 48-byte hash and by its 32-byte Ethereum prefix', async () => {
    const byNumber = await f.call('/api/v1/blocks/2');
    expect(byNumber.body.hash).to.equal(f.blocks.calls.hash);
    const byHash = await f.call(`/api/v1/blocks/${f.blocks.calls.hash}`);
    expect(byHash.body.number).to.equal(2);
    const byEthHash = await f.call(`/api/v1/blocks/${f.blocks.calls.hash.slice(2, 66)}`);
    expect(byEthHash.body.number).to.equal(2);
  });

  it('answers 404 Not found for a block that does not exist', async () => {
    const { status, body } = await f.call('/api/v1/blocks/99999');
    expect(status).to.equal(404);
    expect(body).to.deep.equal({ _status: { messages: [{ message: 'Not found' }] } });
    expect((await f.call(`/api/v1/blocks/0x${'ab'.repeat(32)}`)).status).to.equal(404);
  });

  it('answers 400 naming every bad or unknown parameter', async () => {
    const bad = await f.call('/api/v1/blocks?block.number=ne:2&limit=0&order=sideways&foo=1');
    expect(bad.status).to.equal(400);
    expect(bad.body._status.messages.map((m: any) => m.message)).to.deep.equal([
      'Invalid parameter: block.number',
      'Invalid parameter: limit',
      'Invalid parameter: order',
      'Unknown query parameter: foo',
    ]);
    const badId = await f.call('/api/v1/blocks/0xnothex');
    expect(badId.status).to.equal(400);
    expect(badId.body._status.messages[0].message).to.equal('Invalid parameter: hashOrNumber');
    const unknown = await f.call('/api/v1/blocks/1?block.number=1');
    expect(unknown.body._status.messages[0].message).to.equal('Unknown query parameter: block.number');
  });
});
