import { expect } from 'chai';
import { formatTransaction } from '../../src/ledger/format.js';
import { RESULTS } from './fixtureMirror.js';

describe('ledger formatting', () => {
  it('a typed transaction whose contract result has no chain id carries this chain’s id', () => {
    const typed = { ...RESULTS[0], chain_id: null };
    const parties = { from: `0x${'11'.repeat(20)}`, to: `0x${'22'.repeat(20)}` };
    const block = { number: 1, hash: `0x${'ab'.repeat(32)}`, timestamp: 1 };
    const tx = formatTransaction(typed, parties, block, { gasPriceWeibar: 1n, chainId: 296 }) as { chainId: string; type: string };
    expect([tx.type, tx.chainId]).to.deep.equal(['0x2', '0x128']);
    expect((formatTransaction(RESULTS[0], parties, block, { gasPriceWeibar: 1n, chainId: 296 }) as { chainId: string }).chainId).to.equal('0x12a');
  });
});
