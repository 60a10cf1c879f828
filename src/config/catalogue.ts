import type { ConfigInput } from './schema.js';

type ChainsInput = ConfigInput['chains'];
type PlansInput = ConfigInput['plans'];

/** Chains served out of the box, with their real chain ids. Upstreams come from the operator's config or the sandbox. */
const EVM_MAINNETS: Record<string, [displayName: string, chainId: number]> = {
  ethereum: ['Ethereum', 1],
  base: ['Base', 8453],
  arbitrum: ['Arbitrum One', 42161],
  optimism: ['OP Mainnet', 10],
  polygon: ['Polygon PoS', 137],
  bsc: ['BNB Smart Chain', 56],
  avalanche: ['Avalanche C-Chain', 43114],
  gnosis: ['Gnosis', 100],
  fantom: ['Fantom Opera', 250],
  linea: ['Linea', 59144],
  scroll: ['Scroll', 534352],
  zksync: ['ZKsync Era', 324],
  celo: ['Celo', 42220],
  moonbeam: ['Moonbeam', 1284],
  mantle: ['Mantle', 5000],
  blast: ['Blast', 81457],
  cronos: ['Cronos', 25],
  aurora: ['Aurora', 1313161554],
  kava: ['Kava EVM', 2222],
};

export function defaultChains(): ChainsInput {
  const chains: ChainsInput = {
    hedera: {
      kind: 'ledger',
      displayName: 'Hedera',
      networks: {
        mainnet: { chainId: 295, apis: ['rpc', 'rest', 'graphql'] },
        testnet: { chainId: 296, apis: ['rpc', 'rest', 'graphql'] },
      },
    },
  };
  for (const [name, [displayName, chainId]] of Object.entries(EVM_MAINNETS)) {
    chains[name] = { kind: 'evm', displayName, networks: { mainnet: { chainId } } };
  }
  chains.ethereum.networks.mainnet.apis = ['rpc', 'beta-graphql'];
  chains.ethereum.networks.sepolia = { chainId: 11155111 };
  chains.ethereum.networks.hoodi = { chainId: 560048 };
  chains.base.networks.sepolia = { chainId: 84532 };
  return chains;
}

/**
 * Each plan's hbar budget per key and window (24 h by default) is a number of writes at the operator's largest fee
 * (ledger.maxFeeTinybar, 20 hbar by default): a write is admitted only while that much is left, and then costs what
 * its record charged (a fraction of a hbar for a plain EthereumTransaction).
 */
export function defaultPlans(): PlansInput {
  const all = ['rpc', 'rest', 'graphql', 'beta-graphql', 'mcp'] as const;
  return {
    free: { requestsPerSecond: 10, monthlyQuota: 100_000, apis: [...all], maxGraphqlDepth: 6, maxGraphqlBytes: 8_192, maxGraphqlCost: 20_000, maxSubscriptions: 2, maxFilters: 10, maxSockets: 2, maxSubscriptionsPerSocket: 10, hbarPerKeyTinybar: 5_000_000_000 },
    developer: { requestsPerSecond: 50, monthlyQuota: 5_000_000, apis: [...all], maxGraphqlDepth: 10, maxGraphqlCost: 100_000, maxSubscriptions: 10, maxFilters: 50, maxSockets: 10, maxSubscriptionsPerSocket: 50, hbarPerKeyTinybar: 20_000_000_000 },
    startup: { requestsPerSecond: 200, monthlyQuota: 50_000_000, apis: [...all], maxGraphqlDepth: 15, maxGraphqlCost: 500_000, maxSubscriptions: 50, maxFilters: 200, maxSockets: 50, hbarPerKeyTinybar: 100_000_000_000 },
    premium: { requestsPerSecond: 500, monthlyQuota: 200_000_000, apis: [...all], maxSubscriptions: 200, maxFilters: 500, maxSockets: 200, debugMethods: true, hbarPerKeyTinybar: 500_000_000_000 },
    enterprise: { requestsPerSecond: 2_000, monthlyQuota: 2_000_000_000, apis: [...all], maxSubscriptions: 1_000, maxFilters: 1_000, maxSockets: 2_000, maxSubscriptionsPerSocket: 1_000, debugMethods: true, hbarPerKeyTinybar: 2_000_000_000_000 },
  };
}
