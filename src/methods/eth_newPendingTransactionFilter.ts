import { GatewayError } from '../errors.js';

/**
 * Mirror: nothing. The ledger has no public mempool (transactions go straight to consensus nodes); the official relay
 * refuses the method as unsupported (its eth.ts newPendingTransactionFilter), and so does this one, rather than make
 * a filter whose changes would always be empty. EVM networks keep theirs (the gateway's filters make it).
 */
export async function eth_newPendingTransactionFilter(): Promise<never> {
  throw new GatewayError('REFUSED_METHOD');
}
