import { expect } from 'chai';
import { encodeRlp, getBytes, hexlify, type RlpStructuredData } from 'ethers/utils';
import fc from 'fast-check';
import { hexBytes, rlpBytes, rlpList, uintBytes } from '../../src/ledger/rlp.js';

type Item = Uint8Array | Item[];

const encode = (item: Item): Uint8Array => (item instanceof Uint8Array ? rlpBytes(item) : rlpList(item.map(encode)));
const asEthers = (item: Item): RlpStructuredData => (item instanceof Uint8Array ? hexlify(item) : item.map(asEthers));

describe('RLP over bytes', () => {
  it('encodes nested byte strings and lists as ethers does, long headers included', () => {
    const { item } = fc.letrec<{ item: Item }>((tie) => ({
      item: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.uint8Array({ maxLength: 300 }), fc.array(tie('item'), { maxLength: 20 })),
    }));
    fc.assert(fc.property(item, (it) => {
          expect(hexlify(encode(it))).to.equal(encodeRlp(asEthers(it)));
        }), { numRuns: 500 });
  });

  it('writes integers minimally, zero as the empty string', () => {
    expect(hexlify(uintBytes(0n))).to.equal('0x');
    expect(hexlify(uintBytes(0x1234n))).to.equal('0x1234');
    expect(hexlify(uintBytes(0x123n))).to.equal('0x0123');
  });

  it('reads hex data, padding an odd digit count and refusing what is not hex', () => {
    expect(hexlify(hexBytes('0xabc'))).to.equal('0x0abc');
    expect(hexBytes(null)).to.have.length(0);
    expect(hexBytes('0xABcd')).to.deep.equal(getBytes('0xabcd'));
    expect(() => hexBytes('0x12zz')).to.throw(TypeError);
    expect(() => hexBytes('1234')).to.throw(TypeError);
  });
});
