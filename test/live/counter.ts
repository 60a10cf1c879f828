/** Counter deployed through the gateway with ethers, and set() sent one transaction (and so one block) at a time. */
import { Contract, ContractFactory, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { counter } from '../e2e/counter.js';

export interface DeployedCounter {
  address: string;
  /** The Set event's topic. */
  topic: string;
  /** Sends set(value) and resolves with its receipt's block number and hash. */
  set(value: bigint): Promise<{ blockNumber: number; blockHash: string }>;
  close(): void;
}

export async function deployCounter(url: string, account = 0): Promise<DeployedCounter> {
  return attachCounter(url, account);
}

/** A Counter at `address`, or a new one, sending from the sandbox account with that index (its nonce read afresh). */
export async function attachCounter(url: string, account: number, address?: string): Promise<DeployedCounter> {
  const provider = new JsonRpcProvider(url, undefined, { cacheTimeout: -1, pollingInterval: 50 });
  const wallet = new NonceManager(new Wallet(sandboxAccounts(account + 1)[account].privateKey, provider));
  if (!address) {
    const deployed = await new ContractFactory(counter().abi, counter().bytecode, wallet).deploy();
    await deployed.waitForDeployment();
    address = await deployed.getAddress();
  }
  const contract = new Contract(address, counter().abi, wallet);
  return {
    address: address.toLowerCase(),
    topic: contract.interface.getEvent('Set')!.topicHash,
    async set(value) {
      const receipt = await (await contract.set(value)).wait();
      return { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
    },
    close: () => provider.destroy(),
  };
}

/** The `value` topic of a Set log. */
export const valueOf = (log: { topics: string[] }) => BigInt(log.topics[2]);
