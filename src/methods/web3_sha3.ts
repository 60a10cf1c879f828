import { keccak256 } from 'ethers/crypto';
import { data, positional } from './params.js';

/** Keccak-256 of the given bytes, in-process. */
export async function web3_sha3(params: unknown[]): Promise<string> {
  const [input] = positional(params, 1, 1);
  return keccak256(data(input, 0));
}
