/**
 * The relay benchmark's pieces shared by its sections: the ledger network on a mirror stub, the stub's request count,
 * and the official relay's production mix.
 */
import type { ConfigInput } from '../src/config/schema.js';
import { call, child } from './harness.js';
import { COUNT_PATH, LATEST_BLOCK } from './mirrorStub.js';

/** How many requests the counting mirror stub has answered. */
export async function mirrorRequests(mirrorUrl: string): Promise<number> {
  return Number(await (await fetch(new URL(COUNT_PATH, mirrorUrl))).text());
}

export const ledgerChains = (mirrorUrl: string): ConfigInput['chains'] => ({
  hedera: {
    kind: 'ledger',
    displayName: 'Hedera',
    networks: {
      mainnet: { chainId: 295, apis: ['rpc'], ledger: { mirrorUrl, consensus: { '127.0.0.1:1': '0.0.3' } } },
      testnet: { chainId: 296, apis: ['rpc'], ledger: { mirrorUrl, consensus: { '127.0.0.1:1': '0.0.3' } } },
    },
  },
});

/**
 * The official relay's production mix, spread over many blocks, as a shuffled list every connection cycles through;
 * `below` moves its blocks that much further below the head (the same calls on blocks another mix did not read).
 */
export function relayMix(size = 2_000, below = 0): string[] {
  const bodies: string[] = [];
  const hexN = (n: number) => `0x${n.toString(16)}`;
  let seed = 42;
  const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const someBlock = () => LATEST_BLOCK - 1 - below - Math.floor(rand() * 5_000);
  for (let i = 0; i < size; i++) {
    const r = rand() * 100;
    if (r < 69) bodies.push(call('eth_getBlockByNumber', [rand() < 0.1 ? 'latest' : hexN(someBlock()), rand() < 0.5], i));
    else if (r < 82) {
      const n = someBlock();
      bodies.push(call('eth_getLogs', [{ fromBlock: hexN(n), toBlock: hexN(n), address: '0x00000000000000000000000000000000000003ec' }], i));
    } else if (r < 88) bodies.push(call('eth_chainId', [], i));
    else if (r < 93) bodies.push(call('eth_blockNumber', [], i));
    else if (r < 96) bodies.push(call('eth_call', [{ to: '0x00000000000000000000000000000000000003ec', data: '0x70a08231' }, 'latest'], i));
    else if (r < 98) bodies.push(call('eth_getTransactionReceipt', [`0x${someBlock().toString(16).padStart(16, '0')}00000000${'cd'.repeat(20)}`], i));
    else bodies.push(call('eth_getBalance', [`0x${'12'.repeat(20)}`, 'latest'], i));
  }
  return bodies;
}

/** Requests the relay section's mirror stubs answer for themselves before they are used (see startMirrorStub). */
export const STUB_WARM_UP_REQUESTS = 3_000;

/** The counting mirror stub of the relay section, its code warmed up with `warmUpRequests` of its own. */
export const relayMirrorStub = (warmUpRequests = STUB_WARM_UP_REQUESTS) => child('./stubServer.ts', ['mirror', '0', String(warmUpRequests)]);
