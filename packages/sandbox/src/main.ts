/** `npm run sandbox`: the ledger testnet sandbox alone, for pointing other tools at it. Ctrl-C or SIGTERM stops it. */
import { sandboxBanner } from './banner.js';
import { sandboxCliSettings } from './cliSettings.js';
import { startLedgerSandbox, type LedgerSandbox } from './index.js';

const TESTNET_CHAIN_ID = 296;

let sandbox: LedgerSandbox;
try {
  const settings = sandboxCliSettings(process.env);
  sandbox = await startLedgerSandbox({ ...settings, chainId: settings.chainId ?? TESTNET_CHAIN_ID });
} catch (err) {
  // A bad setting or a fixed port already in use.
  console.error(`Sandbox not started: ${(err as Error).message}`);
  process.exit(1);
}
console.log(sandboxBanner(sandbox));
const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
console.log(`Started in ${Math.round(process.uptime() * 1000)} ms (module loading included), RSS ${rssMb} MB. Ctrl-C stops it.`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await sandbox.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
