import { z } from 'zod';
import type { Router } from '../../edge/route.js';

/** The chain input as an enum of the configured chains, so the schema itself tells an agent what is valid. */
export function chainInput(router: Router, kind?: 'evm' | 'ledger') {
  const names = [...new Set(router.networks().filter((n) => !kind || n.chain.kind === kind).map((n) => n.chainName))];
  return z
    .enum(names as [string, ...string[]], { error: `chain must be one of: ${names.join(', ')}` })
    .describe(`Chain name: ${names.join(', ')}`);
}

export const networkInput = z
  .string({ error: 'network must be a network name such as mainnet, testnet or sepolia (list_chains lists them)' })
  .regex(/^[a-z0-9]+$/, 'network must be a network name such as mainnet, testnet or sepolia (list_chains lists them)')
  .default('mainnet')
  .describe('Network of the chain: mainnet (default), testnet, sepolia, ... as listed by list_chains');

const BLOCK_NUMBER_OR_TAG = 'latest|earliest|pending|safe|finalized|0x[0-9a-fA-F]{1,16}|\\d{1,19}';
const BLOCK_WORDS = 'latest, earliest, pending, safe, finalized, a decimal block number or a 0x-hex block number';

/** A block tag or number (decimal or hex); pass it through blockParam before sending. */
export const blockTagInput = z
  .string()
  .regex(new RegExp(`^(${BLOCK_NUMBER_OR_TAG})$`), `block must be ${BLOCK_WORDS}`)
  .default('latest');

/** A block tag, number or 0x block hash. */
export const blockRefInput = z
  .string()
  .regex(new RegExp(`^(${BLOCK_NUMBER_OR_TAG}|0x[0-9a-fA-F]{64})$`), `block must be ${BLOCK_WORDS}, or a 0x block hash (64 hex digits)`)
  .default('latest');

/** JSON-RPC wants block numbers in hex; agents often give decimal. */
export function blockParam(block: string): string {
  return /^\d+$/.test(block) ? `0x${BigInt(block).toString(16)}` : block;
}
