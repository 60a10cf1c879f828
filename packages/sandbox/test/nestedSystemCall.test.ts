/**
 * A contract's call, without value, to a system account that has no precompile (0.0.556, as the official equivalence
 * suite's contracts make them): hiero-consensus-node `CustomMessageCallProcessor.start` sends every frame to such an
 * address through `handleNonExtantSystemAccount`, which clears the frame's remaining gas, so the call succeeds empty
 * and spends all the gas it was given, inside a transaction as at its top (contracts.test.ts pins the top-level call).
 */
import { expect } from 'chai';
import { Interface, Wallet, keccak256, type TransactionRequest } from 'ethers';
import solc from 'solc';
import { sandboxAccounts } from '../src/accounts.js';
import { LedgerChain } from '../src/ledger/chain.js';
import { submitSigned } from './submitSigned.js';

const CHAIN_ID = 298;
const WEIBAR = 10_000_000_000n;
const SYSTEM_ACCOUNT = '0x000000000000000000000000000000000000022c';

const POKER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Poker {
  function poke(address to, uint256 gasGiven) external returns (bool ok) {
    (ok, ) = to.call{gas: gasGiven}("");
  }
}`;

function compilePoker(): { abi: Interface; bytecode: string } {
  const input = { language: 'Solidity', sources: { 'P.sol': { content: POKER } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
  const out = JSON.parse(solc.compile(JSON.stringify(input))).contracts['P.sol'].Poker;
  return { abi: new Interface(out.abi), bytecode: `0x${out.evm.bytecode.object}` };
}

describe('sandbox ledger: a nested call to a system account without a precompile', function () {
  this.timeout(60_000);
  let chain: LedgerChain;
  const [sender] = sandboxAccounts(1);
  const { abi, bytecode } = compilePoker();
  let nonce = 0;
  let poker: string;

  async function send(tx: TransactionRequest) {
    const signed = await new Wallet(sender.privateKey).signTransaction({ chainId: CHAIN_ID, nonce: nonce++, type: 2, maxFeePerGas: 2_000n * WEIBAR, maxPriorityFeePerGas: 0n, ...tx });
    expect(await submitSigned(chain, signed)).to.equal('OK');
    await chain.closeBlock();
    return chain.transactionByEthHash(keccak256(signed))!;
  }
  const poke = (to: string) => send({ to: poker, gasLimit: 200_000, data: abi.encodeFunctionData('poke', [to, 50_000]) });

  before(async () => {
    chain = await LedgerChain.create({ chainId: CHAIN_ID, blockIntervalMs: 3_600_000 });
    const created = await send({ gasLimit: 1_000_000, data: bytecode });
    expect(created.result).to.equal('SUCCESS');
    poker = chain.account(created.contractId!)!.evmAddress;
  });
  after(async () => {
    await chain?.close();
  });

  it('succeeds and spends all the gas the call was given, where a call to an account without code spends none of it', async () => {
    // The operator's address is long-zero too (an ED25519 account): its call data costs what 0x22c's does.
    const toAccount = await poke(chain.account(chain.operator.accountId)!.evmAddress);
    const toSystem = await poke(SYSTEM_ACCOUNT);
    expect(toAccount.result).to.equal('SUCCESS');
    expect(toSystem.result).to.equal('SUCCESS');
    // Both calls are cold, carry no value and cost the same call data: they differ by the 50,000 gas 0.0.556 keeps.
    expect(toSystem.gasUsed! - toAccount.gasUsed!).to.equal(50_000);
  });
});
