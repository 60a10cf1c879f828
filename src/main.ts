import { startGateway, type Gateway } from './app.js';
import { ConfigError, loadConfig } from './config/load.js';
import { sandboxAccounts } from './sandbox/accounts.js';

function banner(gw: Gateway): string {
  const lines = [''];
  const testnetRpc = `${gw.urls.network('hedera-testnet')}/rpc`;
  if (gw.config.sandbox.enabled) {
    lines.push('  LOCAL SANDBOX: networks without configured upstreams are served by local stand-ins');
    lines.push('  (a ledger sandbox with a real EVM, and EVM devnets with each network\'s real chain id). Nothing here is a real chain.');
    lines.push('');
  }
  lines.push(`  Gateway:        ${gw.urls.base}`);
  lines.push(`  Ledger testnet: ${testnetRpc}   (REST ${gw.urls.mirror('testnet')}, GraphQL ${gw.urls.network('hedera-testnet')}/v1/graphql)`);
  lines.push(`  Sepolia:        ${gw.urls.network('ethereum-sepolia')}/rpc`);
  lines.push(`  MCP:            ${gw.urls.mcp}`);
  lines.push(`  New keys:       ${gw.urls.app}/keys/new?name=my-project&network=testnet`);
  lines.push(`  Metrics:        ${gw.urls.base}/metrics`);
  if (gw.demoKey) {
    lines.push('');
    lines.push(`  Demo API key:   ${gw.demoKey}`);
    lines.push('  Try it:');
    lines.push(`    curl -s ${testnetRpc} -H 'X-API-KEY: ${gw.demoKey}' -H 'content-type: application/json' \\`);
    lines.push(`      -d '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}'`);
    lines.push(`    curl -s -H 'Host: ethereum-sepolia.localhost' ${gw.urls.base}/v1/${gw.demoKey}/rpc \\`);
    lines.push(`      -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'`);
  }
  if (gw.config.sandbox.enabled) {
    lines.push('');
    lines.push('  Prefunded accounts (sandbox only; these private keys are public, never use them on a real network):');
    for (const [i, a] of sandboxAccounts().entries()) lines.push(`    (${i}) ${a.address}  ${a.privateKey}`);
  }
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  // `npm start | head` closes stdout early; a banner or shutdown line that cannot be written must not crash a gateway.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const gateway = await startGateway(config);
  process.stdout.write(banner(gateway));
  const stop = (signal: string) => {
    process.stdout.write(`\n${signal}: draining in-flight requests and stopping\n`);
    gateway.close().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

await main();
