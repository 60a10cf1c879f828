/** The start-up listing of the ledger sandbox, in the spirit of `hardhat node`. */
import { PREFUNDED_WEIBAR } from './accounts.js';
import { SANDBOX_PORT_ENV } from './cliSettings.js';
import type { LedgerSandbox } from './index.js';

const HBAR_WEIBAR = 10n ** 18n;

export function sandboxBanner(sandbox: LedgerSandbox): string {
  const [consensusAddress, nodeId] = Object.entries(sandbox.consensus)[0];
  const lines = [
    `Ledger sandbox (chain id ${sandbox.chain.chainId}), block interval ${sandbox.chain.blockIntervalMs} ms`,
    `  consensus node  ${consensusAddress} (node ${nodeId}, plaintext gRPC)`,
    `  mirror node     ${sandbox.mirrorUrl}/api/v1`,
    ...(sandbox.graphqlUrl ? [`  GraphQL         ${sandbox.graphqlUrl}`] : []),
    `  (ports are chosen at start unless fixed with ${Object.values(SANDBOX_PORT_ENV).join(', ')})`,
    '',
    'Operator (for a relay)',
    `  account id   ${sandbox.operator.accountId}`,
    `  private key  ${sandbox.operator.privateKey} (ED25519, DER)`,
    '',
    'Superuser (the treasury: pays no fees, as on the local node; e.g. OPERATOR_ID_MAIN of the official acceptance tests)',
    `  account id   ${sandbox.superuser.accountId}`,
    `  private key  ${sandbox.superuser.privateKey} (ED25519, DER)`,
    '',
    ...(sandbox.history
      ? [
          'Starting history',
          `  ERC-20 SBX       ${sandbox.history.erc20} (deployed by account #0, transfers to #1 and #2, one reverted)`,
          `  HTS token SHT    ${sandbox.history.htsToken} (treasury ${sandbox.operator.accountId}, 250.00 sent to account #1)`,
          `  created accounts ${sandbox.history.createdAccounts.join(', ')}`,
          '',
        ]
      : []),
    'Accounts',
    '========',
    '',
    'WARNING: These accounts, and their private keys, are publicly known.',
    'Any funds sent to them on a real network WILL BE LOST.',
    '',
  ];
  sandbox.accounts.forEach((a, i) => {
    lines.push(`Account #${i}: ${a.address} (${a.accountId}, prefunded with ${PREFUNDED_WEIBAR / HBAR_WEIBAR} HBAR)`);
    lines.push(`Private Key: ${a.privateKey}`);
    lines.push('');
  });
  lines.push(
    "Hiero local node accounts (the keys the official relay's examples and suites use; the sandbox's account ids)",
    '',
  );
  for (const a of sandbox.localNodeAccounts) {
    lines.push(`${a.address} (${a.accountId}, prefunded with ${PREFUNDED_WEIBAR / HBAR_WEIBAR} HBAR)`);
    lines.push(`Private Key: ${a.privateKey}`);
    lines.push('');
  }
  return lines.join('\n');
}
