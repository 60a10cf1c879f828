/** `npm run sandbox`: the ledger testnet sandbox alone, for pointing other tools at it. Ctrl-C or SIGTERM stops it. */
import { sandboxBanner } from './banner.js';
import { startLedgerSandbox } from './index.js';

const TESTNET_CHAIN_ID = 296;

const interval = process.env.SANDBOX_BLOCK_INTERVAL_MS;
const sandbox = await startLedgerSandbox({
  chainId: TESTNET_CHAIN_ID,
  blockIntervalMs: interval === undefined ? undefined : Number(interval),
  host: process.env.SANDBOX_HOST ?? '127.0.0.1',
});
console.log(sandboxBanner(sandbox));

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await sandbox.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
