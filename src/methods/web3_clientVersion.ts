import pkg from '../../package.json' with { type: 'json' };
import { positional } from './params.js';

const VERSION = `${pkg.name}/${pkg.version}/ledger-relay`;

export async function web3_clientVersion(params: unknown[]): Promise<string> {
  positional(params, 0, 0);
  return VERSION;
}
