import { expect } from 'chai';
import { PrivateKey } from '@hashgraph/sdk';
import { parseOperatorKey } from '../../src/ledger/consensus.js';

describe('operator key parsing', () => {
  it('reads DER keys of either type and bare hex as ECDSA', () => {
    const ed = PrivateKey.generateED25519();
    const ecdsa = PrivateKey.generateECDSA();
    expect(parseOperatorKey(ed.toStringDer()).toStringDer()).to.equal(ed.toStringDer());
    expect(parseOperatorKey(ecdsa.toStringDer()).toStringDer()).to.equal(ecdsa.toStringDer());
    expect(parseOperatorKey(`0x${ecdsa.toStringRaw()}`).toStringDer()).to.equal(ecdsa.toStringDer());
  });

  it('never echoes a bad key in its error', () => {
    const secret = 'not-a-key-but-secret-text';
    expect(() => parseOperatorKey(secret)).to.throw(Error).that.satisfies((e: Error) => !e.message.includes(secret));
  });
});
