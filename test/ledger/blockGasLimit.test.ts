import { expect } from 'chai';
import { blockGasLimit } from '../../src/ledger/blockGasLimit.js';

describe('blockGasLimit: a block’s gas limit from the release that wrote it', () => {
  it('is 150M from services 0.69 on (HIP-1249), release candidates and later majors included', () => {
    for (const v of ['0.69.0', '0.69.1', '0.69.0-rc.1', '0.77.0', '0.100.2', '1.0.0']) expect(blockGasLimit(v), v).to.equal(150_000_000);
  });
  it('is 30M (15M gas a second, two-second blocks) before 0.69 and for a block without a readable version', () => {
    for (const v of ['0.68.9', '0.22.3', '0.9.70', null, undefined, '', 'x.y.z']) expect(blockGasLimit(v), String(v)).to.equal(30_000_000);
  });
});
