/**
 * How an upstream's refusal of an eth_getLogs span is read, over providers' own words: a hinted range, a named cap
 * (with thousands separators or a K), a bare refusal, and errors that are not about the range at all (the client's own,
 * or a rate limit, where cutting the range would only ask more).
 */
import { expect } from 'chai';
import { cutOf } from '../../src/rpc/logSplit.js';

const span = { from: 0, to: 99_999 };

describe('cutOf: reading a refused eth_getLogs span', () => {
  for (const [error, cut] of [
    [{ code: -32602, message: 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x0, 0x1f3]' }, { blocks: 500, learn: false }],
    [{ code: -32005, message: 'query returned more than 10000 results', data: { from: '0x0', to: '0x63' } }, { blocks: 100, learn: false }],
    [{ code: -32005, message: 'query returned more than 10000 results. Try with this block range [0x10, 0x2f].' }, { blocks: 32, learn: false }],
    [{ code: -32000, message: 'exceed maximum block range: 5000' }, { blocks: 5_000, learn: true }],
    [{ code: -32602, message: 'eth_getLogs is limited to a 10,000 range' }, { blocks: 10_000, learn: true }],
    [{ code: -32000, message: 'query exceeds max block range 2000' }, { blocks: 2_000, learn: true }],
    [{ code: -32600, message: 'You can make eth_getLogs requests with up to a 2K block range' }, { blocks: 2_000, learn: true }],
    [{ code: -32000, message: 'block range is too wide' }, 'halve'],
    [{ code: -32005, message: 'limit exceeded' }, 'halve'],
    [{ code: -32000, message: 'query timeout exceeded' }, 'halve'],
    [{ code: -32000, message: 'invalid block range params' }, undefined],
    [{ code: -32602, message: 'invalid argument 0: hex string without 0x prefix' }, undefined],
    [{ code: -32005, message: 'project ID request rate exceeded' }, undefined],
    [{ code: -32005, message: 'daily request count exceeded, request rate limited' }, undefined],
  ] as const) {
    it(`${JSON.stringify(error.message)} -> ${JSON.stringify(cut)}`, () => {
      expect(cutOf(error, span)).to.deep.equal(cut);
    });
  }
});
