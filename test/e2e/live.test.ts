/**
 * Live data through the gateway, as dapps and indexers follow it: ethers v6, viem and web3.js listening for Counter's
 * Set events and for new blocks, over HTTP (filters) and WebSocket (eth_subscribe), on the ledger chain and on an EVM
 * devnet. Each listener must see every event exactly once and in order.
 *
 * Listeners start asynchronously in every library, so each case first sends marker transactions until the listener
 * has seen one, then a few more: what it received must be exactly what was sent from its first event on.
 */
import { expect } from 'chai';
import { Contract, ContractFactory, JsonRpcProvider, NonceManager, WebSocketProvider, Wallet, type Provider } from 'ethers';
import { createPublicClient, defineChain, http, webSocket, type Address, type Transport } from 'viem';
import { Web3, WebSocketProvider as Web3WebSocketProvider } from 'web3';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { counter } from './counter.js';

/** Marker transactions sent at most before a listener counts as not working. */
const MAX_MARKERS = 40;
const EVENTS_AFTER_START = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * Sends markers until the listener has received something, then EVENTS_AFTER_START more; `emit` returns what the
 * listener should receive for that transaction. Received must equal sent from the first received item on. Block
 * watchers may first report the head they started at (viem's polling watchBlockNumber does), which no send made.
 */
async function expectEveryEvent<T>(received: T[], emit: () => Promise<T>, opts: { headAtStart?: boolean } = {}): Promise<void> {
  const sent: T[] = [];
  for (let i = 0; received.length === 0; i++) {
    if (i === MAX_MARKERS) throw new Error('the listener received nothing');
    sent.push(await emit());
    await sleep(150);
  }
  for (let i = 0; i < EVENTS_AFTER_START; i++) sent.push(await emit());
  const last = sent.at(-1);
  await until(() => received.includes(last as T), `${String(last)} to arrive`);
  // Long enough for a duplicate to show up: several polls of every listener here.
  await sleep(400);
  const ours = opts.headAtStart && !sent.includes(received[0]) ? received.slice(1) : received;
  const first = sent.findIndex((s) => s === ours[0]);
  expect(first, `first received ${String(ours[0])} was never sent`).to.not.equal(-1);
  expect(ours).to.deep.equal(sent.slice(first));
}

/** ethers uninstalls filters and subscriptions in the background; destroying the provider first fails those calls. */
async function settle(provider: JsonRpcProvider | WebSocketProvider): Promise<void> {
  await sleep(300);
  provider.destroy();
}

const networks = [
  { name: 'the ledger chain (hedera-testnet)', id: 'hedera-testnet', chainId: 296 },
  { name: 'an EVM devnet (ethereum-sepolia)', id: 'ethereum-sepolia', chainId: 11155111 },
];

describe('live data clients through the gateway', function () {
  this.timeout(120_000);
  let t: TestGateway;

  before(async () => {
    counter();
    t = await startTestGateway({ live: { pollIntervalMs: 50 } });
  });
  after(() => t?.close());

  for (const network of networks) {
    describe(network.name, () => {
      const [owner] = sandboxAccounts(1);
      let httpUrl: string;
      let wsUrl: string;
      let sender: Contract;
      let address: Address;
      let nextValue = 1n;
      const chain = defineChain({ id: network.chainId, name: network.id, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } });

      /** Sends set(v) with a fresh value and waits for its receipt; returns the value and the block it landed in. */
      const emitSet = async () => {
        const value = nextValue++;
        const receipt = await (await sender.set(value)).wait();
        return { value, block: receipt.blockNumber as number };
      };

      before(async () => {
        httpUrl = `${t.gw.url}/${network.id}/v1/${t.key}/rpc`;
        wsUrl = httpUrl.replace(/^http/, 'ws');
        const provider = new JsonRpcProvider(httpUrl, undefined, { cacheTimeout: -1, pollingInterval: 50 });
        const wallet = new NonceManager(new Wallet(owner.privateKey, provider));
        const deployed = await new ContractFactory(counter().abi, counter().bytecode, wallet).deploy();
        await deployed.waitForDeployment();
        address = (await deployed.getAddress()) as Address;
        sender = new Contract(address, counter().abi, wallet);
      });
      after(() => (sender?.runner?.provider as Provider | undefined)?.destroy());

      describe('ethers v6', () => {
        const providers = {
          JsonRpcProvider: () => new JsonRpcProvider(httpUrl, undefined, { cacheTimeout: -1, pollingInterval: 50 }),
          WebSocketProvider: () => new WebSocketProvider(wsUrl),
        };
        for (const [kind, make] of Object.entries(providers)) {
          it(`${kind}: contract.on receives every Set event once, in order`, async () => {
            const provider = make();
            const received: bigint[] = [];
            const contract = new Contract(address, counter().abi, provider);
            await contract.on('Set', (_by: string, value: bigint) => void received.push(value));
            try {
              await expectEveryEvent(received, async () => (await emitSet()).value);
            } finally {
              await contract.removeAllListeners();
              await settle(provider);
            }
          });

          it(`${kind}: provider.on(filter) receives every matching log once, in order`, async () => {
            const provider = make();
            const received: bigint[] = [];
            const topic = new Contract(address, counter().abi).interface.getEvent('Set')!.topicHash;
            await provider.on({ address, topics: [topic] }, (log) => void received.push(BigInt(log.topics[2])));
            try {
              await expectEveryEvent(received, async () => (await emitSet()).value);
            } finally {
              await provider.removeAllListeners();
              await settle(provider);
            }
          });

          it(`${kind}: provider.on('block') receives every block once, in order`, async () => {
            const provider = make();
            const received: number[] = [];
            await provider.on('block', (n: number) => void received.push(n));
            try {
              await expectEveryEvent(received, async () => (await emitSet()).block);
            } finally {
              await provider.removeAllListeners();
              await settle(provider);
            }
          });
        }
      });

      describe('viem', () => {
        const transports: Record<string, () => Transport> = {
          http: () => http(httpUrl),
          webSocket: () => webSocket(wsUrl),
        };
        for (const [kind, make] of Object.entries(transports)) {
          it(`${kind}: watchContractEvent receives every Set event once, in order`, async () => {
            const client = createPublicClient({ chain, transport: make(), pollingInterval: 50 });
            const received: bigint[] = [];
            const unwatch = client.watchContractEvent({
              address,
              abi: counter().abi,
              eventName: 'Set',
              onLogs: (logs) => logs.forEach((l: any) => received.push(l.args.value)),
            });
            try {
              await expectEveryEvent(received, async () => (await emitSet()).value);
            } finally {
              unwatch();
            }
          });

          it(`${kind}: watchBlockNumber receives every block once, in order`, async () => {
            const client = createPublicClient({ chain, transport: make(), pollingInterval: 50 });
            const received: number[] = [];
            const unwatch = client.watchBlockNumber({ emitMissed: true, onBlockNumber: (n) => void received.push(Number(n)) });
            try {
              await expectEveryEvent(received, async () => (await emitSet()).block, { headAtStart: true });
            } finally {
              unwatch();
            }
          });
        }
      });

      describe('web3.js', () => {
        it("subscribe('logs') receives every Set event once, in order", async () => {
          const web3 = new Web3(new Web3WebSocketProvider(wsUrl));
          const received: bigint[] = [];
          const topic = new Contract(address, counter().abi).interface.getEvent('Set')!.topicHash;
          const sub = await web3.eth.subscribe('logs', { address, topics: [topic] });
          sub.on('data', (log: any) => void received.push(BigInt(log.topics[2])));
          try {
            await expectEveryEvent(received, async () => (await emitSet()).value);
          } finally {
            await sub.unsubscribe();
            await web3.provider?.disconnect?.();
          }
        });

        it("subscribe('newBlockHeaders') receives every block once, in order", async () => {
          const web3 = new Web3(new Web3WebSocketProvider(wsUrl));
          const received: number[] = [];
          const sub = await web3.eth.subscribe('newBlockHeaders');
          sub.on('data', (header: any) => void received.push(Number(header.number)));
          try {
            await expectEveryEvent(received, async () => (await emitSet()).block);
          } finally {
            await sub.unsubscribe();
            await web3.provider?.disconnect?.();
          }
        });
      });
    });
  }
});
