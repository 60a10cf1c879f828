/**
 * Compiles the ledger sandbox's system contracts (packages/sandbox/src/ledger/SystemContracts.sol) into
 * packages/sandbox/src/ledger/systemContractsCode.ts, so that starting a sandbox never runs the compiler (solc-js takes
 * seconds). Run: `npx tsx scripts/compile-system-contracts.ts`. A test compiles again and compares.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import solc from 'solc';

const dir = fileURLToPath(new URL('../packages/sandbox/src/ledger/', import.meta.url));

/** The runtime code of each contract, 0x hex. */
export function compileSystemContracts(): { hts: string; exchangeRate: string; prng: string } {
  const input = {
    language: 'Solidity',
    sources: { 'SystemContracts.sol': { content: readFileSync(`${dir}SystemContracts.sol`, 'utf8') } },
    settings: { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['evm.deployedBytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const contracts = output.contracts['SystemContracts.sol'];
  const code = (name: string) => `0x${contracts[name].evm.deployedBytecode.object}`;
  return { hts: code('HtsSystemContract'), exchangeRate: code('ExchangeRateSystemContract'), prng: code('PrngSystemContract') };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { hts, exchangeRate, prng } = compileSystemContracts();
  writeFileSync(
    `${dir}systemContractsCode.ts`,
    `/** Generated from SystemContracts.sol by scripts/compile-system-contracts.ts (solc ${solc.version()}); do not edit. */\n` +
      `/** Runtime code of 0x167 and, through EIP-7702 designators, of every token. */\n` +
      `export const HTS_RUNTIME =\n  '${hts}';\n\n` +
      `export const EXCHANGE_RATE_RUNTIME =\n  '${exchangeRate}';\n\n` +
      `export const PRNG_RUNTIME =\n  '${prng}';\n`,
  );
}
