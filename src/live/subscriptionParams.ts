/**
 * eth_subscribe's params, read in one of two dialects: geth's on EVM chains, the official hiero relay's on the ledger
 * (its `subscribeController`), since each chain's tools were written against its own reference.
 */
import { GatewayError } from '../errors.js';
import { bool, object, positional } from '../methods/params.js';
import { parseCriteria } from './criteria.js';
import type { LogCriteria } from './filterStore.js';

export type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions';

export interface SubscriptionRequest {
  kind: SubscriptionKind;
  criteria?: Pick<LogCriteria, 'address' | 'topics'>;
  /** newHeads with each transaction in full rather than by hash (the official relay's `includeTransactions`). */
  includeTransactions: boolean;
}

const GETH_KINDS: readonly SubscriptionKind[] = ['newHeads', 'logs', 'newPendingTransactions'];

/** geth: three kinds; only `logs` takes a filter, and that filter has no block range. */
export function gethSubscription(params: unknown): SubscriptionRequest {
  const [kind, filter] = positional(params, 1, 2);
  if (typeof kind !== 'string' || !(GETH_KINDS as readonly string[]).includes(kind)) {
    throw new GatewayError('INVALID_PARAMS', `subscription type must be one of ${GETH_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  }
  if (kind !== 'logs' && filter !== undefined) throw new GatewayError('INVALID_PARAMS', `${kind} takes no filter`);
  const criteria = kind === 'logs' ? parseCriteria(filter, 'filter', { blockRange: 'refuse' }) : undefined;
  return { kind: kind as SubscriptionKind, criteria, includeTransactions: false };
}

/** The official relay's checks of a `logs` filter (its EthSubscribeLogsParamsObject schema), in its words. */
const OFFICIAL_FILTER_CHECKS = {
  address: {
    valid: (v: unknown) => (Array.isArray(v) ? v.flat() : [v]).every((a) => typeof a === 'string' && /^0[xX][0-9a-fA-F]{40}$/.test(a)),
    expected: 'Expected 0x prefixed string representing the address (20 bytes) or an array of addresses',
  },
  topics: {
    valid: (v: unknown) => Array.isArray(v) && v.flat().every((t) => t === null || (typeof t === 'string' && /^0[xX][0-9a-fA-F]{64}$/.test(t))),
    expected: 'Expected an array or array of arrays containing Expected 0x prefixed string representing the hash (32 bytes) of a topic',
  },
};

function checkAsOfficialRelay(filter: unknown): void {
  if (filter === undefined || filter === null || typeof filter !== 'object') return;
  for (const [name, check] of Object.entries(OFFICIAL_FILTER_CHECKS)) {
    const value = (filter as Record<string, unknown>)[name];
    if (value === undefined || value === null || check.valid(value)) continue;
    const shown = typeof value === 'object' ? JSON.stringify(value) : String(value);
    throw new GatewayError('INVALID_PARAMETER', `'${name}' for EthSubscribeLogsParamsObject: ${check.expected}, value: ${shown}`);
  }
}

/**
 * The official relay: `logs` (address and topics read, anything else in the filter dropped) and `newHeads` (with an
 * optional `{includeTransactions}`); any other kind, pending transactions included (there is no public mempool), is
 * -32601 `Unsupported JSON-RPC method`.
 */
export function relaySubscription(params: unknown): SubscriptionRequest {
  const [kind, options] = positional(params, 1, 2);
  if (kind === 'logs') {
    checkAsOfficialRelay(options);
    return { kind, criteria: parseCriteria(options, 'filter', { blockRange: 'ignore' }), includeTransactions: false };
  }
  if (kind !== 'newHeads') throw new GatewayError('REFUSED_METHOD');
  const given = options === undefined ? undefined : object(options, 'newHeads options').includeTransactions;
  const includeTransactions = given === undefined || given === null ? false : bool(given, 'newHeads options.includeTransactions');
  return { kind, includeTransactions };
}
