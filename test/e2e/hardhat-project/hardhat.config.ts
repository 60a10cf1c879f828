import { createRequire } from 'node:module';
import { configVariable, type HardhatUserConfig } from 'hardhat/config';

const require = createRequire(import.meta.url);
// solc from npm (resolved from the repo's node_modules), never a compiler download; the version must match the package.
const solcPath = require.resolve('solc/soljson.js');
const solcVersion: string = require('solc/package.json').version;

const config: HardhatUserConfig = {
  solidity: {
    version: solcVersion,
    path: solcPath,
    settings: { evmVersion: 'shanghai', optimizer: { enabled: true, runs: 200 } },
  },
  networks: {
    // The gateway's /rpc URL (key in the path) and a funded private key, both from the environment.
    gateway: { type: 'http', url: configVariable('GATEWAY_RPC_URL'), accounts: [configVariable('GATEWAY_PRIVATE_KEY')] },
  },
};

export default config;
