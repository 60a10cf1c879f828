import { startGateway, type Gateway } from './app.js';
import { ConfigError, loadConfig } from './config/load.js';
import { GatewayError } from './errors.js';

function banner(gw: Gateway, accounts: Array<{ address: string; privateKey: string }>): string {
  const lines = [''];
  // Only networks this gateway serves: with a config file the sandbox's testnet and Sepolia may not exist.
  const { ledger, evm } = gw.router.examples();
  if (gw.config.sandbox.enabled) {
    lines.push('  LOCAL SANDBOX: networks without configured upstreams are served by local stand-ins');
    lines.push('  (a ledger sandbox with a real EVM, and EVM devnets with each network\'s real chain id). Nothing here is a real chain.');
    lines.push('');
  }
  lines.push(`  Gateway:        ${gw.urls.base}`);
  if (ledger) {
    const base = gw.urls.network(ledger.id);
    const extras = [
      ledger.network.apis.includes('rest') ? `REST ${base}/api/v1` : '',
      ledger.network.apis.includes('graphql') ? `GraphQL ${base}/v1/graphql` : '',
    ].filter(Boolean);
    lines.push(`  Ledger:         ${base}/rpc${extras.length > 0 ? `   (${extras.join(', ')})` : ''}`);
  }
  if (evm) lines.push(`  EVM:            ${gw.urls.network(evm.id)}/rpc`);
  lines.push(`  MCP:            ${gw.urls.mcp}`);
  lines.push(`  New keys:       ${gw.urls.app}/keys/new?name=my-project&network=testnet`);
  if (gw.privateUrl) lines.push(`  Metrics:        ${gw.privateUrl}/metrics   (private listener)`);
  lines.push(`  Node:           ${process.version}`);
  if (gw.adminUrl) lines.push(`  Admin API:      ${gw.adminUrl}   (keys CLI in another terminal: npm run keys -- list)`);
  const first = ledger ?? evm;
  if (gw.demoKey && first) {
    lines.push('');
    lines.push(`  Demo API key:   ${gw.demoKey}`);
    lines.push('  Try it:');
    lines.push(`    curl -s ${gw.urls.network(first.id)}/rpc -H 'X-API-KEY: ${gw.demoKey}' -H 'content-type: application/json' \\`);
    lines.push(`      -d '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}'`);
    if (evm) {
      lines.push(`    curl -s -H 'Host: ${evm.id}.${gw.config.server.serviceDomain}' ${gw.urls.base}/v1/${gw.demoKey}/rpc \\`);
      lines.push(`      -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'`);
    }
  }
  if (accounts.length > 0) {
    lines.push('');
    lines.push('  Prefunded accounts (sandbox only; these private keys are public, never use them on a real network):');
    for (const [i, a] of accounts.entries()) lines.push(`    (${i}) ${a.address}  ${a.privateKey}`);
  }
  return lines.join('\n') + '\n';
}

function startFailure(err: unknown): GatewayError | undefined {
  if (err instanceof GatewayError) return err;
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code === 'EADDRINUSE') {
    return new GatewayError('PORT_IN_USE', `${e.address}:${e.port}; stop that process, or choose another port with PORT (the private listener takes PORT + 1)`);
  }
  return undefined;
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
  let gateway;
  try {
    gateway = await startGateway(config);
  } catch (err) {
    // What a new user meets (a second `npm start`, something else on the port) is one line to act on, not a stack trace.
    const failure = startFailure(err);
    if (!failure) throw err;
    process.stderr.write(`${failure.message}\n`);
    process.exit(1);
  }
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
  // After the handlers: whoever reads the banner as "started" may signal at once, and must get a drain.
  process.stdout.write(banner(gateway, (await gateway.local?.accounts()) ?? []));
}

await main();
