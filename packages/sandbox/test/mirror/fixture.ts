/**
 * A ledger sandbox with real transactions in it, and the mirror-node stand-in serving it: blocks with a contract
 * deployment, event-emitting calls, a value transfer, a revert and a transaction the ledger refused (wrong nonce).
 */
import { expect } from 'chai';
import { Interface, Wallet, keccak256, parseEther } from 'ethers';
import solc from 'solc';
import { sandboxAccounts } from '../../src/accounts.js';
import { LedgerChain } from '../../src/ledger/chain.js';
import type { LedgerBlock, LedgerTransaction } from '../../src/ledger/view.js';
import { startMirrorNode, type MirrorNode } from '../../src/mirror/server.js';
import { validateMirrorResponse } from '../../../../test/support/mirrorSchema.js';
import { submitSigned } from '../submitSigned.js';

const CHAIN_ID = 298;
/** 710 gwei: the sandbox ledger's gas price (71 tinybar per gas) in weibar. */
const MAX_FEE_PER_GAS = 710_000_000_000n;

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Counter {
  uint256 public count;
  event Incremented(address indexed by, uint256 indexed newCount, string note);
  constructor() payable {}
  function increment(string calldata note) external payable { count += 1; emit Incremented(msg.sender, count, note); }
  function check(uint256 v) external pure returns (uint256) { require(v < 10, "value too large"); return v; }
}`;

let compiled: { abi: Interface; bytecode: string } | undefined;
function counter() {
  if (!compiled) {
    const input = { language: 'Solidity', sources: { 'Counter.sol': { content: SOURCE } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
    const out = JSON.parse(solc.compile(JSON.stringify(input))).contracts['Counter.sol'].Counter;
    compiled = { abi: new Interface(out.abi), bytecode: `0x${out.evm.bytecode.object}` };
  }
  return compiled;
}

export interface Fixture {
  chain: LedgerChain;
  mirror: MirrorNode;
  abi: Interface;
  alice: Wallet;
  bob: Wallet;
  /** Recorded transactions by role. */
  deploy: LedgerTransaction;
  transfer: LedgerTransaction;
  increments: LedgerTransaction[];
  revert: LedgerTransaction;
  wrongNonce: LedgerTransaction;
  contract: { id: string; address: string };
  blocks: { deploy: LedgerBlock; calls: LedgerBlock; last: LedgerBlock };
  /** GET (or POST with a body) over HTTP; every answer is checked against the mirror node's OpenAPI document. */
  call(path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** The same GET, answered as raw text (for digits JSON.parse would round). */
  text(path: string): Promise<string>;
  /** Signs and submits one more type-2 transaction; returns its Ethereum hash (recorded when the next block closes). */
  submit(wallet: Wallet, tx: { nonce: number; to?: string; data?: string; value?: bigint; gasLimit?: number }): Promise<string>;
  close(): Promise<void>;
}

export async function buildFixture(): Promise<Fixture> {
  const chain = await LedgerChain.create({ chainId: CHAIN_ID, blockIntervalMs: 3_600_000 });
  const [a, b] = sandboxAccounts(2);
  const alice = new Wallet(a.privateKey);
  const bob = new Wallet(b.privateKey);
  const { abi, bytecode } = counter();

  async function submit(wallet: Wallet, tx: { nonce: number; to?: string; data?: string; value?: bigint; gasLimit?: number }): Promise<string> {
    const signed = await wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      gasLimit: tx.gasLimit ?? 1_000_000,
      maxFeePerGas: MAX_FEE_PER_GAS,
      maxPriorityFeePerGas: 0n,
      ...tx,
    });
    const status = await submitSigned(chain, signed);
    expect(status).to.equal('OK');
    return keccak256(signed);
  }
  const recorded = (hash: string) => {
    const tx = chain.transactionByEthHash(hash);
    if (!tx) throw new Error(`transaction ${hash} was not recorded`);
    return tx;
  };

  const deployHash = await submit(alice, { nonce: 0, data: bytecode });
  const transferHash = await submit(alice, { nonce: 1, to: bob.address, value: parseEther('5') });
  const deployBlock = (await chain.closeBlock()) as LedgerBlock;
  const deploy = recorded(deployHash);
  const contractId = deploy.contractId as string;
  const address = chain.account(contractId)?.evmAddress as string;

  const inc1 = await submit(alice, { nonce: 2, to: address, data: abi.encodeFunctionData('increment', ['hello']) });
  const inc2 = await submit(alice, { nonce: 3, to: address, data: abi.encodeFunctionData('increment', ['again']) });
  const revertHash = await submit(bob, { nonce: 0, to: address, data: abi.encodeFunctionData('check', [42]) });
  const wrongNonceHash = await submit(bob, { nonce: 7, to: address, data: abi.encodeFunctionData('check', [1]) });
  const callsBlock = (await chain.closeBlock()) as LedgerBlock;
  const inc3 = await submit(bob, { nonce: 1, to: address, data: abi.encodeFunctionData('increment', ['from bob']) });
  const lastBlock = (await chain.closeBlock()) as LedgerBlock;

  const mirror = await startMirrorNode(chain);
  return {
    chain,
    mirror,
    abi,
    alice,
    bob,
    deploy,
    transfer: recorded(transferHash),
    increments: [recorded(inc1), recorded(inc2), recorded(inc3)],
    revert: recorded(revertHash),
    wrongNonce: recorded(wrongNonceHash),
    contract: { id: contractId, address },
    blocks: { deploy: deployBlock, calls: callsBlock, last: lastBlock },
    async call(path, body) {
      const res = await fetch(`${mirror.url}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = await res.json();
      expect(validateMirrorResponse(path, body === undefined ? 'get' : 'post', res.status, json), `${path} -> ${res.status} ${JSON.stringify(json)}`).to.deep.equal([]);
      return { status: res.status, body: json };
    },
    text: async (path) => (await fetch(`${mirror.url}${path}`)).text(),
    submit,
    async close() {
      await mirror.close();
      await chain.close();
    },
  };
}
