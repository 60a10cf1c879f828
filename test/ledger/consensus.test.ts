import { expect } from 'chai';
import { PrivateKey } from '@hashgraph/sdk';
import { parseOperatorKey } from '../../src/ledger/consensus.js';

describe('operator key parsing', () => {
  it('reads DER keys of either type and bare hex as ECDSA', async () => {
    const ed = PrivateKey.generateED25519();
    const ecdsa = PrivateKey.generateECDSA();
    expect((await parseOperatorKey(ed.toStringDer())).toStringDer()).to.equal(ed.toStringDer());
    expect((await parseOperatorKey(ecdsa.toStringDer())).toStringDer()).to.equal(ecdsa.toStringDer());
    expect((await parseOperatorKey(`0x${ecdsa.toStringRaw()}`)).toStringDer()).to.equal(ecdsa.toStringDer());
  });

  it('never echoes a bad key in its error', async () => {
    const secret = 'not-a-key-but-secret-text';
    const err = await parseOperatorKey(secret).then(() => undefined, (e: Error) => e);
    expect(err).to.be.instanceOf(Error).that.satisfies((e: Error) => !e.message.includes(secret));
  });
});
