import { expect } from 'chai';
import { toUtf8Bytes } from 'ethers';
import { assembleBlock } from '../../src/ledger/blocks.js';
import { EMPTY_TRIE_ROOT } from '../../src/ledger/convert.js';
import type { ContractResult, MirrorLog } from '../../src/ledger/reads.js';
import { trieRoot } from '../../src/ledger/trie.js';

const bytes = (s: string) => toUtf8Bytes(s);

describe('receipts trie and block contents', () => {
  it('computes Merkle-Patricia roots as the Ethereum test vectors have them', () => {
    expect(trieRoot([])).to.equal(EMPTY_TRIE_ROOT);
    // ethereum/tests TrieTests: "puppy" (a branch, an extension and embedded short nodes)
    const pairs: Array<[Uint8Array, Uint8Array]> = [
      [bytes('doe'), bytes('reindeer')],
      [bytes('dog'), bytes('puppy')],
      [bytes('dogglesworth'), bytes('cat')],
    ];
    expect(trieRoot(pairs)).to.equal('0x8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3');
    expect(trieRoot([...pairs].reverse())).to.equal(trieRoot(pairs));
  });

  it('counts a token transfer without a contract result as a transaction, in index order, with running gas', () => {
    const result = (i: number, gas: number) =>
      ({ hash: `0x${String(i).repeat(64)}`, transaction_index: i, gas_used: gas, status: '0x1', type: 2, bloom: '0x' }) as unknown as ContractResult;
    const tokenLog = { address: `0x${'0'.repeat(36)}0bb9`, data: '0x', index: 0, topics: [], transaction_hash: `0x${'9'.repeat(64)}`, transaction_index: 1 } as MirrorLog;
    const { txs, receiptsRoot } = assembleBlock([result(0, 100), result(2, 50)], [tokenLog]);
    expect(txs.map((t) => [t.index, t.result === null, t.cumulativeGasUsed])).to.deep.equal([
      [0, false, 100n],
      [1, true, 100n],
      [2, false, 150n],
    ]);
    expect(receiptsRoot).to.match(/^0x[0-9a-f]{64}$/).and.not.equal(EMPTY_TRIE_ROOT);
    expect(assembleBlock([], []).receiptsRoot).to.equal(EMPTY_TRIE_ROOT);
  });
});
