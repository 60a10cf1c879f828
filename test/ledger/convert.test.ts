import { expect } from 'chai';
import { fixedBytes, hexFieldToQuantity, intrinsicGas, timestampSeconds, tinybarToWeibar, toHash32, toQuantity, weibarToTinybar } from '../../src/ledger/convert.js';
import { blockNumberOrTag, blockNumberOrTagOrHash, positional } from '../../src/methods/params.js';

describe('ledger conversions', () => {
  it('cuts a 48-byte ledger hash to its first 32 bytes, lower case', () => {
    const ledger = '0xFBD921184E229E2051280D827BA3B31599117AF7EAFBA65DC0E5A998B70C48C0492BF793A150769B1B4FB2C9B7CB4C1C';
    expect(toHash32(ledger)).to.equal('0xfbd921184e229e2051280d827ba3b31599117af7eafba65dc0e5a998b70c48c0');
  });

  it('converts tinybar to weibar and back (1 tinybar = 10^10 weibar)', () => {
    expect(tinybarToWeibar(1)).to.equal(10_000_000_000n);
    expect(tinybarToWeibar('5000000000000000000')).to.equal(5n * 10n ** 28n);
    expect(weibarToTinybar(19_999_999_999n)).to.equal(1n);
    expect(hexFieldToQuantity('0x0040', 10n ** 10n)).to.equal(`0x${(64n * 10n ** 10n).toString(16)}`);
    expect(hexFieldToQuantity('0x')).to.equal('0x0');
  });

  it('turns consensus timestamps into whole seconds and numbers into minimal quantities', () => {
    expect(timestampSeconds('1676540001.234500000')).to.equal(1676540001);
    expect(toQuantity(0)).to.equal('0x0');
    expect(toQuantity(255n)).to.equal('0xff');
    expect(fixedBytes('0x01', 4)).to.equal('0x00000001');
    expect(fixedBytes('0x', 2)).to.equal('0x0000');
  });

  it('prices calldata the EIP-2028 way', () => {
    expect(intrinsicGas('0x', false)).to.equal(21_000n);
    expect(intrinsicGas('0x00ff', false)).to.equal(21_020n);
    expect(intrinsicGas('0x', true)).to.equal(53_000n);
  });

  it('reads block tags, numbers and hashes', () => {
    expect(blockNumberOrTag(undefined, 0)).to.deep.equal({ tag: 'latest' });
    for (const tag of ['latest', 'earliest', 'pending', 'safe', 'finalized']) expect(blockNumberOrTag(tag, 0)).to.deep.equal({ tag });
    expect(blockNumberOrTag('0x1b4', 0)).to.deep.equal({ number: 436 });
    expect(blockNumberOrTagOrHash(`0x${'AB'.repeat(32)}`, 0)).to.deep.equal({ hash: `0x${'ab'.repeat(32)}` });
    expect(blockNumberOrTagOrHash({ blockNumber: '0x2' }, 0)).to.deep.equal({ number: 2 });
    expect(() => blockNumberOrTag('1b4', 0)).to.throw(/hex block number/);
    expect(() => blockNumberOrTag(12, 0)).to.throw(/hex block number/);
  });

  it('treats trailing nulls as absent params', () => {
    expect(positional([null], 0, 0)).to.deep.equal([]);
    expect(positional(['0x1', null], 1, 2)).to.deep.equal(['0x1']);
    expect(() => positional(['0x1', '0x2'], 0, 1)).to.throw(/at most 1 param/);
  });
});
