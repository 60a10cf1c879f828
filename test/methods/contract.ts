/**
 * The test contracts: Greeter.sol (state, a payable call that emits an event, a revert) and Caller.sol (a contract
 * that calls another one, which may revert). Their compiled forms are kept in Greeter.json and Caller.json because
 * solc-js takes seconds to compile; regenerate them with `npx tsx test/methods/contract.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Compiled {
  abi: any[];
  bytecode: string;
}

const here = (file: string) => fileURLToPath(new URL(`./${file}`, import.meta.url));

export function greeter(): Compiled {
  return JSON.parse(readFileSync(here('Greeter.json'), 'utf8')) as Compiled;
}

/** Inner and Outer, from Caller.sol. */
export function callers(): Record<'Inner' | 'Outer', Compiled> {
  return JSON.parse(readFileSync(here('Caller.json'), 'utf8'));
}

async function compile(file: string, names: string[]): Promise<Record<string, Compiled>> {
  const { default: solc } = await import('solc');
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: readFileSync(here(file), 'utf8') } },
    settings: { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: any) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: any) => e.formattedMessage).join('\n'));
  return Object.fromEntries(names.map((name) => [name, { abi: output.contracts[file][name].abi, bytecode: `0x${output.contracts[file][name].evm.bytecode.object}` }]));
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(here('Greeter.json'), json((await compile('Greeter.sol', ['Greeter'])).Greeter));
  writeFileSync(here('Caller.json'), json(await compile('Caller.sol', ['Inner', 'Outer'])));
}
