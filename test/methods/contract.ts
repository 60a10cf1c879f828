/**
 * The test contract (Greeter.sol): state, a payable call that emits an event, a revert. Its compiled form is kept in
 * Greeter.json because solc-js takes seconds to compile; regenerate it with `npx tsx test/methods/contract.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Compiled {
  abi: any[];
  bytecode: string;
}

const SOURCE = fileURLToPath(new URL('./Greeter.sol', import.meta.url));
const ARTIFACT = fileURLToPath(new URL('./Greeter.json', import.meta.url));

export function greeter(): Compiled {
  return JSON.parse(readFileSync(ARTIFACT, 'utf8')) as Compiled;
}

async function compile(): Promise<void> {
  const { default: solc } = await import('solc');
  const input = {
    language: 'Solidity',
    sources: { 'Greeter.sol': { content: readFileSync(SOURCE, 'utf8') } },
    settings: { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: any) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: any) => e.formattedMessage).join('\n'));
  const c = output.contracts['Greeter.sol'].Greeter;
  writeFileSync(ARTIFACT, `${JSON.stringify({ abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }, null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await compile();
