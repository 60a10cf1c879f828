/**
 * Compiles the sandboxes' ERC-20 (packages/sandbox/src/history/SandboxToken.sol) into packages/sandbox/src/history/sandboxToken.ts, so
 * that starting a sandbox never runs the compiler (solc-js takes seconds). Run: `npx tsx scripts/compile-sandbox-token.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const dir = fileURLToPath(new URL('../packages/sandbox/src/history/', import.meta.url));
const input = {
  language: 'Solidity',
  sources: { 'SandboxToken.sol': { content: readFileSync(`${dir}SandboxToken.sol`, 'utf8') } },
  settings: { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
const token = output.contracts['SandboxToken.sol'].SandboxToken;
writeFileSync(
  `${dir}sandboxToken.ts`,
  `/** Generated from SandboxToken.sol by scripts/compile-sandbox-token.ts (solc ${solc.version()}); do not edit. */\n` +
    `export const SANDBOX_TOKEN_ABI = ${JSON.stringify(token.abi)} as const;\n\n` +
    `export const SANDBOX_TOKEN_BYTECODE =\n  '0x${token.evm.bytecode.object}';\n`,
);
