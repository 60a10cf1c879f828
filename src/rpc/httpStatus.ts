/**
 * The HTTP status of a JSON-RPC answer. By default every JSON-RPC-level error answers 200: ethers v6 hides the code
 * and message of any non-2xx answer. On the ledger relay, `relay.httpErrorMapping: official` reproduces the official
 * hiero relay instead, which clients and test suites written against it expect. Followed: its
 * `koaJsonRpc/lib/httpErrorMapper.ts` (code to status), `EthereumRPCConformityService` (the
 * ON_VALID_JSON_RPC_HTTP_RESPONSE_STATUS_CODE switch) and `koaJsonRpc/index.ts` (a batch always answers 200).
 */
import type { Config } from '../config/schema.js';
import { catalogueEntryOf, type RpcErrorObject } from './jsonrpc.js';

/** What decides the status: a single request's error, if it got one; a batch's errors never change it. */
export interface AnswerShape {
  batch: boolean;
  error?: RpcErrorObject;
}

export type StatusRule = (answer: AnswerShape) => number;

export const ALWAYS_200: StatusRule = () => 200;

/**
 * The official relay's status per JSON-RPC code; any code not listed answers 400. Its limits have their own code
 * (-32605, 429); ours share -32005 with other errors, so a limit is told by its catalogue entry instead.
 */
const OFFICIAL_STATUS: Record<number, number> = {
  3: 200, // a revert: the call ran
  [-32603]: 500,
  [-32600]: 400,
  [-32601]: 400,
  [-32602]: 400,
  // The official relay maps the mirror node's own status (404 to 400, 429, 501, anything else 500); ours answers this
  // code only when the mirror node failed or could not be reached, which it maps to 500.
  [-32020]: 500,
};

/** Codes that say the request itself was malformed: they keep 400 whatever status a well-formed request's errors get. */
const MALFORMED = new Set([-32600, -32700]);

/**
 * The official relay's mapping; `onValidRequest` is its ON_VALID_JSON_RPC_HTTP_RESPONSE_STATUS_CODE, the status that
 * replaces 400 for errors answered to a well-formed request (400 there by default; 200 makes every such error 200).
 */
export function officialStatus(onValidRequest: number): StatusRule {
  return ({ batch, error }) => {
    if (batch || !error) return 200;
    if (catalogueEntryOf(error)?.graphql === 'RATE_LIMITED') return 429;
    const status = OFFICIAL_STATUS[error.code] ?? 400;
    return status === 400 && !MALFORMED.has(error.code) ? onValidRequest : status;
  };
}

/** The ledger relay's rule, as configured. */
export function ledgerStatusRule(relay: Config['relay']): StatusRule {
  return relay.httpErrorMapping === 'official' ? officialStatus(relay.onValidRequestErrorStatus) : ALWAYS_200;
}
