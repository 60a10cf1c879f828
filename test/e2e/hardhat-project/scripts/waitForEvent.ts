/**
 * Deploys Counter, listens for its Set event with ethers over Hardhat's EIP-1193 provider (so through the gateway's
 * eth_newFilter and eth_getFilterChanges), sends set() until the listener is up and then once more with 1000, waits
 * for that event and prints one JSON line with every value the listener received, in order.
 */
import hre, { network } from 'hardhat';
import { BrowserProvider, Contract, ContractFactory } from 'ethers';

const { provider } = await network.connect();
const { abi, bytecode } = await hre.artifacts.readArtifact('Counter');
const ethers = new BrowserProvider(provider);
ethers.pollingInterval = 100;
const signer = await ethers.getSigner();
const deployed = await new ContractFactory(abi, bytecode, signer).deploy();
await deployed.waitForDeployment();
const counter = new Contract(await deployed.getAddress(), abi, signer);

const received: string[] = [];
const done = new Promise<void>((resolve) => {
  void counter.on('Set', (_by: string, value: bigint) => {
    received.push(String(value));
    if (value === 1000n) resolve();
  });
});
const sent: string[] = [];
// The listener's filter is installed in the background: send until it has seen something.
for (let v = 1n; received.length === 0 && v <= 40n; v++) {
  await (await counter.set(v)).wait();
  sent.push(String(v));
  await new Promise((r) => setTimeout(r, 200));
}
await (await counter.set(1000n)).wait();
sent.push('1000');
await done;
await counter.removeAllListeners();
console.log(JSON.stringify({ sent, received }));
process.exit(0);
