import { positional } from './params.js';

export async function net_listening(params: unknown[]): Promise<true> {
  positional(params, 0, 0);
  return true;
}
