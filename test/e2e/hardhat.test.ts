/**
 * Hardhat 3 (on Node 22, as a child process) builds the fixture project with solc from npm and runs its deploy script
 * against the gateway's /rpc on the ledger chain and on an EVM devnet network, key in the path.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { needTool, TOOLS } from '../support/services.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PROJECT = fileURLToPath(new URL('./hardhat-project/', import.meta.url));
const HARDHAT = path.join(REPO, 'node_modules/hardhat/dist/src/cli.js');

describe('Hardhat 3 through the gateway', function () {
  // Node processes and a WebAssembly compiler: seconds on an idle machine, many times that on a loaded one.
  this.timeout(180_000);
  let t: TestGateway;
  let home: string;
  const [deployer] = sandboxAccounts(1);

  /** Runs the Hardhat CLI in the fixture project; CI=true so it never prompts, HOME in a temp dir it may write to. */
  let node22 = '';
  const hardhat = (args: string[], env: Record<string, string> = {}) =>
    run(node22, [HARDHAT, ...args], {
      cwd: PROJECT,
      env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CACHE_HOME: path.join(home, 'cache'), XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data'), CI: 'true', ...env },
      maxBuffer: 10 * 1024 * 1024,
    });

  before(async function () {
    node22 = needTool(this, TOOLS.node22);
    home = await mkdtemp(path.join(tmpdir(), 'hardhat-home-'));
    const [gateway, build] = await Promise.all([startTestGateway(), hardhat(['build'])]);
    t = gateway;
    expect(build.stdout + build.stderr).to.not.match(/error/i);
  });
  after(async () => {
    await t?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  for (const network of [
    { name: 'the ledger chain (hedera-testnet)', id: 'hedera-testnet', chainId: 296 },
    { name: 'an EVM devnet (ethereum-sepolia)', id: 'ethereum-sepolia', chainId: 11155111 },
  ]) {
    it(`deploys Counter on ${network.name}, calls it and reads its events from eth_getLogs`, async () => {
      const { stdout } = await hardhat(['run', 'scripts/deploy.ts', '--network', 'gateway'], {
        GATEWAY_RPC_URL: `${t.gw.url}/${network.id}/v1/${t.key}/rpc`,
        GATEWAY_PRIVATE_KEY: deployer.privateKey,
      });
      const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
      expect(out).to.deep.include({ chainId: network.chainId, from: deployer.address, deployStatus: '0x1', setStatus: '0x1', value: '42', balance: String(10n ** 10n) });
      expect(out.address).to.match(/^0x[0-9a-fA-F]{40}$/);
      expect(out.events).to.deep.equal([{ by: out.events[0]?.by, value: '42', paid: String(10n ** 10n), transactionHash: out.setHash }]);
      expect(out.events[0].by.toLowerCase()).to.equal(deployer.address);
    });

    it(`waits for an event on ${network.name} through filters, receiving each Set once and in order`, async () => {
      const { stdout } = await hardhat(['run', 'scripts/waitForEvent.ts', '--network', 'gateway'], {
        GATEWAY_RPC_URL: `${t.gw.url}/${network.id}/v1/${t.key}/rpc`,
        GATEWAY_PRIVATE_KEY: deployer.privateKey,
      });
      const { sent, received } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { sent: string[]; received: string[] };
      expect(received.at(-1)).to.equal('1000');
      expect(received).to.deep.equal(sent.slice(sent.indexOf(received[0])));
    });
  }
});
