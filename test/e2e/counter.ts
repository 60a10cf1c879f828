/** Compiles the fixture project's Counter.sol with solc-js (the same compiler Hardhat uses), once per test run. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

export interface Compiled {
  abi: any[];
  bytecode: `0x${string}`;
}

export const COUNTER_SOURCE = fileURLToPath(new URL('./hardhat-project/contracts/Counter.sol', import.meta.url));

let compiled: Compiled | undefined;

export function counter(): Compiled {
  if (compiled) return compiled;
  const input = {
    language: 'Solidity',
    sources: { 'Counter.sol': { content: readFileSync(COUNTER_SOURCE, 'utf8') } },
    // Shanghai: the oldest target with PUSH0 that every EVM behind the gateway accepts; nothing here needs Cancun.
    settings: { evmVersion: 'shanghai', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: any) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: any) => e.formattedMessage).join('\n'));
  const c = output.contracts['Counter.sol'].Counter;
  compiled = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return compiled;
}
