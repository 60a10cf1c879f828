import { expect } from 'chai';
import { validateMirrorResponse } from '../../../../test/support/mirrorSchema.js';
import { buildFixture, type Fixture } from './fixture.js';

describe('sandbox mirror node: contracts/call', function () {
  let f: Fixture;
  before(async () => {
    f = await buildFixture();
  });
  after(() => f?.close());

  const call = (body: unknown) => f.call('/api/v1/contracts/call', body);

  it('runs a read-only call against the newest state', async () => {
    const { status, body } = await call({ to: f.contract.address, data: f.abi.encodeFunctionData('count') });
    expect(status).to.equal(200);
    expect(f.abi.decodeFunctionResult('count', body.result)[0]).to.equal(3n);
  });

  it('runs a call at a past block, given as a decimal or hex number', async () => {
    for (const block of ['1', '0x1']) {
      const { body } = await call({ to: f.contract.address, data: f.abi.encodeFunctionData('count'), block });
      expect(f.abi.decodeFunctionResult('count', body.result)[0]).to.equal(0n);
    }
  });

  it('estimates gas when asked to, without changing state', async () => {
    const { body } = await call({ to: f.contract.address, from: f.alice.address, data: f.abi.encodeFunctionData('increment', ['x']), estimate: true });
    expect(Number(body.result)).to.be.greaterThan(21_000).and.lessThan(200_000);
    const after = await call({ to: f.contract.address, data: f.abi.encodeFunctionData('count') });
    expect(f.abi.decodeFunctionResult('count', after.body.result)[0]).to.equal(3n);
  });

  it('estimates a contract creation when `to` is left out, and refuses one without init code', async () => {
    const deployed = (await f.chain.evm.request({ method: 'eth_getTransactionByHash', params: [f.deploy.ethHash] })) as { input: string };
    const { status, body } = await call({ from: f.alice.address, data: deployed.input, estimate: true });
    expect(status).to.equal(200);
    expect(Number(body.result)).to.be.greaterThan(53_000);
    expect(validateMirrorResponse('/api/v1/contracts/call', 'post', 200, body)).to.deep.equal([]);
    const empty = await call({ from: f.alice.address, estimate: true });
    expect(empty.status).to.equal(400);
    expect(empty.body._status.messages[0].message).to.equal('Invalid parameter: to');
  });

  it('answers a revert with 400 CONTRACT_REVERT_EXECUTED, the reason and the revert data', async () => {
    for (const estimate of [false, true]) {
      const { status, body } = await call({ to: f.contract.address, data: f.abi.encodeFunctionData('check', [42]), estimate });
      expect(status).to.equal(400);
      const [message] = body._status.messages;
      expect(message.message).to.equal('CONTRACT_REVERT_EXECUTED');
      expect(message.detail).to.equal('value too large');
      expect(f.abi.parseError(message.data)?.args[0]).to.equal('value too large');
    }
  });

  it('passes value (tinybar) on: a payable function takes it, a non-payable one reverts', async () => {
    const nonPayable = await call({ to: f.contract.address, from: f.alice.address, value: 100, data: f.abi.encodeFunctionData('check', [1]) });
    expect(nonPayable.status).to.equal(400);
    expect(nonPayable.body._status.messages[0]).to.deep.equal({ message: 'CONTRACT_REVERT_EXECUTED', detail: '' });
    // A function returning nothing answers "0x", as the real node does, though the spec's pattern wants a digit.
    const payload = { to: f.contract.address, from: f.alice.address, value: 100, data: f.abi.encodeFunctionData('increment', ['paid']) };
    const res = await fetch(`${f.mirror.url}/api/v1/contracts/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
    const body = await res.json();
    expect(res.status).to.equal(200);
    expect(body).to.deep.equal({ result: '0x' });
    expect(validateMirrorResponse('/api/v1/contracts/call', 'post', 200, body)).to.deep.equal([
      'POST /api/v1/contracts/call 200: /result must match pattern "^0x[0-9a-fA-F]+$" {"pattern":"^0x[0-9a-fA-F]+$"}',
    ]);
  });

  it('answers 400 naming each invalid field', async () => {
    const { status, body } = await call({ to: '0x1234', data: 'zz', gas: -1, block: 'tomorrow' });
    expect(status).to.equal(400);
    expect(body._status.messages.map((m: any) => m.message)).to.deep.equal([
      'Invalid parameter: to',
      'Invalid parameter: data',
      'Invalid parameter: block',
      'Invalid parameter: gas',
    ]);
    const future = await call({ to: f.contract.address, data: f.abi.encodeFunctionData('count'), block: '0x99' });
    expect(future.status).to.equal(400);
    const estimateOld = await call({ to: f.contract.address, data: f.abi.encodeFunctionData('count'), block: '1', estimate: true });
    expect(estimateOld.status).to.equal(400);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await fetch(`${f.mirror.url}/api/v1/contracts/call`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    const body = await res.json();
    expect(res.status).to.equal(415);
    expect(validateMirrorResponse('/api/v1/contracts/call', 'post', 415, body)).to.deep.equal([]);
    expect(body._status.messages[0].message).to.equal('Unsupported content type');
  });
});
