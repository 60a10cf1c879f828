import { expect } from 'chai';
import { Transaction, Wallet } from 'ethers';
import { buildFixture, type Fixture } from './fixture.js';

describe('sandbox mirror node: signature values of a contract result', function () {
  let f: Fixture;
  before(async () => {
    f = await buildFixture();
  });
  after(() => f?.close());

  it('gives r and s as the bytes of their RLP integers: a leading zero byte dropped, as the real node stores them', async () => {
    // Signing is deterministic (RFC 6979): look for call data whose signature's s has a leading zero byte.
    const base = { type: 2, chainId: f.chain.chainId, nonce: 4, to: f.bob.address, gasLimit: 1_000_000, maxFeePerGas: 710_000_000_000n, maxPriorityFeePerGas: 0n };
    let data = '';
    let signature: Transaction['signature'] = null;
    for (let i = 0; !signature || BigInt(signature.s) >= 2n ** 248n; i++) {
      data = `0x${i.toString(16).padStart(8, '0')}`;
      signature = Transaction.from(await new Wallet(f.alice.privateKey).signTransaction({ ...base, data })).signature;
    }
    const hash = await f.submit(f.alice, { nonce: 4, to: f.bob.address, data });
    await f.chain.closeBlock();
    const { body } = await f.call(`/api/v1/contracts/results/${hash}`);
    expect(body.s).to.equal(`0x${signature!.s.slice(4)}`);
    expect(BigInt(body.r)).to.equal(BigInt(signature!.r));
  });
});
