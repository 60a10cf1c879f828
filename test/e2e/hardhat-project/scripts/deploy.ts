/**
 * Deploys Counter through the selected network with Hardhat's own signing (its local-accounts provider turns
 * eth_sendTransaction into eth_sendRawTransaction), calls it, reads its events with eth_getLogs and prints one JSON
 * line for the test to check. Uses the bare EIP-1193 provider; ethers only encodes and decodes ABI data.
 */
import hre, { network } from 'hardhat';
import { Interface } from 'ethers';

const { provider } = await network.connect();
const { abi, bytecode } = await hre.artifacts.readArtifact('Counter');
const counter = new Interface(abi);

const request = (method: string, params: unknown[] = []) => provider.request({ method, params }) as Promise<any>;

async function receiptOf(hash: string) {
  for (;;) {
    const receipt = await request('eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const [from] = (await request('eth_accounts')) as string[];
const deploy = await receiptOf(await request('eth_sendTransaction', [{ from, data: bytecode}]));
const address: string = deploy.contractAddress;
const set = await receiptOf(await request('eth_sendTransaction', [{ from, to: address, data: counter.encodeFunctionData('set', [42n]), value: '0x2540be400' }]));
// The ledger relay's eth_getLogs clamps ranges to its cached head, which can trail a receipt it has just served.
while (BigInt(await request('eth_blockNumber')) < BigInt(set.blockNumber)) await new Promise((r) => setTimeout(r, 50));
const read = async () => counter.decodeFunctionResult('value', await request('eth_call', [{ to: address, data: counter.encodeFunctionData('value') }, 'latest']))[0] as bigint;
const logs = await request('eth_getLogs', [{ address, fromBlock: deploy.blockNumber, toBlock: set.blockNumber, topics: [counter.getEvent('Set')!.topicHash] }]);

console.log(
  JSON.stringify({
    chainId: Number(await request('eth_chainId')),
    from,
    address,
    deployStatus: deploy.status,
    setStatus: set.status,
    setHash: set.transactionHash,
    value: String(await read()),
    balance: BigInt(await request('eth_getBalance', [address, 'latest'])).toString(),
    events: logs.map((log: any) => {
      const { args } = counter.parseLog(log)!;
      return { by: args.by, value: String(args.value), paid: String(args.paid), transactionHash: log.transactionHash };
    }),
  }),
);
