/** `npm run sandbox`: the ledger testnet sandbox alone, for pointing other tools at it. Ctrl-C or SIGTERM stops it. */
import { sandboxBanner } from './banner.js';
import { startLedgerSandbox } from './index.js';

const TESTNET_CHAIN_ID = 296;

const interval = process.env.SANDBOX_BLOCK_INTERVAL_MS;
const sandbox = await startLedgerSandbox({
  chainId: TESTNET_CHAIN_ID,
  blockIntervalMs: interval === undefined ? undefined : Number(interval),
  host: process.env.SANDBOX_HOST ?? '127.0.0.1',
  // As in the gateway's config: on unless SANDBOX_HISTORY=false.
  history: !/^(0|false|no|off)$/i.test(process.env.SANDBOX_HISTORY ?? ''),
});
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
