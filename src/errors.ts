/**
 * The one error catalogue. Every API renders these in its own convention:
 * JSON-RPC error objects, GraphQL `errors[]`, mirror-node `_status.messages[]`, plain JSON or HTML pages.
 */
export interface CatalogueEntry {
  /** HTTP status when the error ends the whole request. JSON-RPC-level errors answer 200 so clients see the code. */
  http: number;
  /** JSON-RPC error code. */
  rpc: number;
  /** GraphQL `extensions.code`. */
  graphql: string;
  /** Fixed text; a `{detail}` in it is where the error's detail goes, otherwise the detail follows it. */
  message: string;
}

function entry(http: number, rpc: number, graphql: string, message: string): CatalogueEntry {
  return { http, rpc, graphql, message };
}

const AUTH_HOWTO =
  'Send your API key in the X-API-KEY header, as Authorization: Bearer <key>, or in the path as /v1/<key>/<api path>.';

export const ERRORS = {
  PARSE_ERROR: entry(200, -32700, 'BAD_REQUEST', 'Parse error: the body is not valid JSON'),
  // The JSON-RPC 2.0 specification's words (section 5.1), which the official relay's WebSocket answers too.
  // The ledger relay's answer to a JSON body that is neither an object nor an array: the official relay's code for it.
  NOT_A_REQUEST: entry(200, -32700, 'BAD_REQUEST', 'Parse error: the body is neither a request object nor a batch array'),
  INVALID_REQUEST: entry(200, -32600, 'BAD_REQUEST', 'Invalid Request'),
  EMPTY_BATCH: entry(200, -32600, 'BAD_REQUEST', 'Invalid Request: empty batch'),
  BATCH_TOO_LARGE: entry(200, -32600, 'BAD_REQUEST', 'Invalid Request: batch too large'),
  // The official relay's words and code for the same refusal (its BATCH_REQUESTS_AMOUNT_MAX_EXCEEDED), on the ledger chain.
  LEDGER_BATCH_TOO_LARGE: entry(200, -32203, 'BAD_REQUEST', 'Batch request amount {detail} exceeds max {detail}'),
  METHOD_NOT_FOUND: entry(200, -32601, 'BAD_REQUEST', 'Method not found'),
  INVALID_PARAMS: entry(200, -32602, 'BAD_USER_INPUT', 'Invalid params'),
  INTERNAL: entry(500, -32603, 'INTERNAL_SERVER_ERROR', 'Internal error'),
  BODY_TOO_LARGE: entry(413, -32600, 'PAYLOAD_TOO_LARGE', 'Request body too large'),
  BODY_TIMEOUT: entry(408, -32600, 'REQUEST_TIMEOUT', 'Request body not received in time'),
  UNSUPPORTED_MEDIA: entry(415, -32600, 'BAD_REQUEST', 'Unsupported content type'),
  METHOD_NOT_ALLOWED: entry(405, -32600, 'METHOD_NOT_ALLOWED', 'HTTP method not allowed'),
  NOT_FOUND: entry(404, -32601, 'NOT_FOUND', 'Not found'),
  UNKNOWN_HOST: entry(404, -32601, 'NOT_FOUND', 'Unknown host'),
  API_NOT_OFFERED: entry(404, -32601, 'NOT_FOUND', 'This network does not offer that API'),
  BAD_REQUEST: entry(400, -32600, 'BAD_REQUEST', 'Bad request'),
  PATH_REFUSED: entry(400, -32600, 'BAD_REQUEST', 'Path refused: a "." or ".." segment, in any spelling, is not allowed'),
  KEY_MISSING: entry(401, -32001, 'UNAUTHENTICATED', `API key missing. ${AUTH_HOWTO}`),
  KEY_INVALID: entry(401, -32001, 'UNAUTHENTICATED', `API key not recognised or revoked. ${AUTH_HOWTO}`),
  KEY_CONFLICT: entry(400, -32600, 'BAD_REQUEST', 'Two different API keys were sent; send one'),
  // Key administration (key page, keys CLI).
  KEY_NOT_FOUND: entry(404, -32602, 'NOT_FOUND', 'No API key with that id'),
  ACCOUNT_NOT_FOUND: entry(404, -32602, 'NOT_FOUND', 'No account with that id'),
  PLAN_UNKNOWN: entry(400, -32602, 'BAD_USER_INPUT', 'Unknown plan'),
  FORM_REFUSED: entry(403, -32600, 'FORBIDDEN', 'Form submission refused (it did not come from this page); reload the page and submit it again'),
  OPERATOR_TOKEN_INVALID: entry(401, -32001, 'UNAUTHENTICATED', 'Operator token missing or wrong; send it as Authorization: Bearer <token>'),
  ADMIN_KEY_NOT_ID: entry(400, -32602, 'BAD_USER_INPUT', 'That is an API key, not its id: name keys by id (key_...), never by the key itself'),
  KEYS_PER_ACCOUNT: entry(429, -32005, 'RATE_LIMITED', 'This account already has as many active keys as allowed; revoke one before creating another'),
  KEY_CREATION_LIMITED: entry(429, -32005, 'RATE_LIMITED', 'Too many keys created recently; try again later'),
  KEY_CREATION_CLOSED: entry(403, -32003, 'FORBIDDEN', 'Self-service key creation is closed on this gateway; ask its operator for a key'),
  KEY_STORE_LOCKED: entry(503, -32603, 'SERVICE_UNAVAILABLE', 'The embedded key store is in use by another process'),
  KEY_DATABASE_UNREACHABLE: entry(503, -32603, 'SERVICE_UNAVAILABLE', 'The key store database (DATABASE_URL) cannot be reached'),
  DATA_DIR_UNWRITABLE: entry(503, -32603, 'SERVICE_UNAVAILABLE', 'The data directory cannot be written'),
  PORT_IN_USE: entry(503, -32603, 'SERVICE_UNAVAILABLE', 'The port is in use by another process'),
  SANDBOX_NOT_INSTALLED: entry(503, -32603, 'SERVICE_UNAVAILABLE', 'This build has no sandbox'),
  PLAN_FORBIDDEN: entry(403, -32003, 'FORBIDDEN', 'Your plan does not include this API'),
  RELAY_FORBIDDEN: entry(403, -32003, 'FORBIDDEN', 'Your plan does not include the ledger JSON-RPC relay'),
  // Refused per call (HTTP 200), so the other calls of a batch are still answered.
  DEBUG_FORBIDDEN: entry(403, -32003, 'FORBIDDEN', 'Your plan does not include the debug_ and trace_ methods'),
  HOST_NOT_ALLOWED: entry(403, -32000, 'FORBIDDEN', 'Host or Origin not allowed (DNS-rebinding protection)'),
  RATE_LIMITED: entry(429, -32005, 'RATE_LIMITED', 'Limit exceeded: requests per second'),
  QUOTA_EXHAUSTED: entry(429, -32005, 'RATE_LIMITED', 'Limit exceeded: monthly quota exhausted'),
  WRITES_LIMITED: entry(429, -32005, 'RATE_LIMITED', 'Limit exceeded: transaction submissions per second'),
  KEYLESS_LIMITED: entry(429, -32005, 'RATE_LIMITED', "Limit exceeded: too many requests from your address without a valid API key (none, or one unknown or revoked). Requests with a valid key use the key's own budget."),
  CONNECTIONS_PER_CLIENT: entry(429, -32005, 'RATE_LIMITED', 'Too many open connections from your address; reuse the ones you have'),
  LIMITER_UNAVAILABLE: entry(503, -32603, 'SERVICE_UNAVAILABLE', 'Rate limiter unavailable; try again shortly'),
  UPSTREAM_UNAVAILABLE: entry(502, -32603, 'BAD_GATEWAY', 'Upstream unavailable'),
  UPSTREAM_TIMEOUT: entry(504, -32603, 'GATEWAY_TIMEOUT', 'Upstream timed out'),
  UPSTREAM_NOT_CONFIGURED: entry(502, -32603, 'BAD_GATEWAY', 'No upstream is configured for this network'),
  SHUTTING_DOWN: entry(503, -32603, 'SERVICE_UNAVAILABLE', 'Gateway is shutting down'),
  SOCKETS_BUSY: entry(503, -32603, 'SERVICE_UNAVAILABLE', 'Too many connections are waiting to authenticate; try again shortly'),
  SOCKETS_PER_CLIENT: entry(429, -32005, 'RATE_LIMITED', 'Too many WebSockets from your address are waiting to authenticate; authenticate or close them first'),
  // Ledger relay errors: codes follow the official relay where it defines one.
  // The official relay's words, which tools match on: `Method <name> not found` (its spec.MethodNotFound).
  UNSUPPORTED_METHOD: entry(200, -32601, 'BAD_REQUEST', 'Method {detail} not found'),
  METHOD_NOT_IN_BATCH: entry(200, -32007, 'BAD_REQUEST', 'Method {detail} is not permitted as part of batch requests'),
  // A method or subscription kind the official relay knows and refuses (its predefined.UNSUPPORTED_METHOD), unlike a
  // method it has never heard of.
  REFUSED_METHOD: entry(200, -32601, 'BAD_REQUEST', 'Unsupported JSON-RPC method'),
  // The official relay's form of a params error (its predefined.INVALID_PARAMETER): the detail names the parameter.
  INVALID_PARAMETER: entry(200, -32602, 'BAD_USER_INPUT', 'Invalid parameter {detail}'),
  // The official relay's words for a required param that was not sent (its predefined.MISSING_REQUIRED_PARAMETER).
  MISSING_REQUIRED_PARAMETER: entry(200, -32602, 'BAD_USER_INPUT', 'Missing value for required parameter {detail}'),
  NOT_A_LOG_SOURCE: entry(200, -32602, 'BAD_USER_INPUT', 'Invalid parameter filters.address: {detail} is not a valid contract or token type or does not exists'),
  EXECUTION_REVERTED: entry(200, 3, 'BAD_REQUEST', 'execution reverted'),
  UNKNOWN_BLOCK: entry(200, -39012, 'BAD_USER_INPUT', 'Unknown block'),
  // The official relay's RESOURCE_NOT_FOUND, whose words its debug suite matches on.
  RESOURCE_NOT_FOUND: entry(200, -32001, 'NOT_FOUND', 'Requested resource not found. {detail}'),
  RANGE_TOO_LARGE: entry(200, -32000, 'BAD_USER_INPUT', 'Range too large'),
  // The official relay's words for an eth_getLogs range past its limit (the limit follows as the detail).
  LOG_RANGE_TOO_LARGE: entry(200, -32000, 'BAD_USER_INPUT', 'Exceeded maximum block range'),
  LOGS_TOO_LARGE: entry(200, -32005, 'BAD_USER_INPUT', 'Limit exceeded: this eth_getLogs answer is larger than the gateway returns; narrow the block range, addresses or topics'),
  LOGS_LIMITED: entry(200, -32005, 'BAD_USER_INPUT', 'Limit exceeded: this eth_getLogs call needs more mirror-node pages than one call may use; narrow the block range, addresses or topics'),
  // The write path's refusals in the official relay's codes and words (its JsonRpcError `predefined`), which tools
  // written for the ledger match on; each `{detail}` takes the next value.
  WRONG_CHAIN_ID: entry(200, -32000, 'BAD_USER_INPUT', 'ChainId ({detail}) not supported. The correct chainId is {detail}'),
  NONCE_TOO_LOW: entry(200, -32000, 'BAD_USER_INPUT', 'Nonce too low. Provided nonce: {detail}, current nonce: {detail}'),
  NONCE_TOO_HIGH: entry(200, -32000, 'BAD_USER_INPUT', 'Nonce too high. Provided nonce: {detail}, current nonce: {detail}'),
  GAS_PRICE_TOO_LOW: entry(200, -32009, 'BAD_USER_INPUT', "Gas price '{detail}' is below configured minimum gas price '{detail}'"),
  GAS_LIMIT_TOO_HIGH: entry(200, -32005, 'BAD_USER_INPUT', "Transaction gas limit '{detail}' exceeds max gas per sec limit '{detail}'"),
  GAS_LIMIT_TOO_LOW: entry(200, -32003, 'BAD_USER_INPUT', "Transaction gas limit provided '{detail}' is insufficient of intrinsic gas required '{detail}'"),
  INSUFFICIENT_FUNDS: entry(200, -32000, 'BAD_USER_INPUT', 'Insufficient funds for transfer'),
  // The official relay's words (-32201 "Oversized data: ..."), which its clients match on.
  TRANSACTION_TOO_LARGE: entry(200, -32201, 'BAD_USER_INPUT', 'Oversized data'),
  CALL_DATA_TOO_LARGE: entry(200, -32201, 'BAD_USER_INPUT', 'Oversized data'),
  INITCODE_TOO_LARGE: entry(200, -32201, 'BAD_USER_INPUT', 'Oversized data'),
  UNKNOWN_SENDER: entry(200, -32001, 'BAD_USER_INPUT', "Requested resource not found. address '{detail}'."),
  TRANSACTION_REJECTED: entry(200, -32003, 'BAD_REQUEST', 'Transaction rejected: {detail}'),
  WRITES_NOT_CONFIGURED: entry(200, -32603, 'BAD_REQUEST', 'Writes are not configured on this network: no operator account'),
  // Per call (HTTP 200, like every JSON-RPC error); 429 is the status the official relay's HTTP mapping gives it. Code
  // and message are the official relay's HBAR_RATE_LIMIT_EXCEEDED, which clients match on.
  HBAR_LIMITED: entry(429, -32606, 'RATE_LIMITED', 'HBAR Rate limit exceeded'),
  SUBMISSION_FAILED: entry(200, -32000, 'BAD_REQUEST', 'Transaction was not accepted by the network'),
  // EIP-7966: code 4 when the receipt is not in within the wait; the transaction hash goes in `data`.
  SEND_SYNC_TIMEOUT: entry(200, 4, 'TIMEOUT', 'The transaction was submitted but not processed in time'),
  MIRROR_UNAVAILABLE: entry(200, -32020, 'BAD_GATEWAY', 'Mirror node unavailable'),
  // GraphQL passthrough guards and subscription limits.
  GRAPHQL_PARSE_FAILED: entry(400, -32600, 'GRAPHQL_PARSE_FAILED', 'GraphQL syntax error'),
  GRAPHQL_TOO_DEEP: entry(400, -32600, 'QUERY_TOO_DEEP', 'Query is nested deeper than your plan allows'),
  GRAPHQL_TOO_LARGE: entry(413, -32600, 'QUERY_TOO_LARGE', 'Query is larger than your plan allows'),
  GRAPHQL_TOO_COSTLY: entry(400, -32600, 'QUERY_TOO_COSTLY', 'Query asks for more than your plan allows: every field counts once per item of the lists around it; lower limit/first/last or select fewer fields'),
  TOO_MANY_SUBSCRIPTIONS: entry(429, -32005, 'RATE_LIMITED', 'Limit exceeded: open subscription connections for this key'),
  TOO_MANY_RUNNING_SUBSCRIPTIONS: entry(429, -32005, 'RATE_LIMITED', 'Limit exceeded: running GraphQL subscriptions for this key; complete one before starting another'),
  // Filters and WebSocket subscriptions (geth's words where geth has them).
  FILTER_NOT_FOUND: entry(200, -32000, 'BAD_USER_INPUT', 'filter not found'),
  LEDGER_FILTER_NOT_FOUND: entry(200, -32001, 'BAD_USER_INPUT', 'Filter not found'),
  TOO_MANY_FILTERS: entry(200, -32005, 'RATE_LIMITED', 'Limit exceeded: filters installed for this key; uninstall one (eth_uninstallFilter) or let one expire'),
  FILTERS_UNAVAILABLE: entry(503, -32603, 'SERVICE_UNAVAILABLE', 'Filter store unavailable; try again shortly'),
  SUBSCRIPTION_NOT_FOUND: entry(200, -32000, 'BAD_USER_INPUT', 'subscription not found'),
  TOO_MANY_SOCKET_SUBSCRIPTIONS: entry(200, -32005, 'RATE_LIMITED', 'Limit exceeded: subscriptions on this WebSocket'),
  TOO_MANY_SOCKETS: entry(429, -32005, 'RATE_LIMITED', 'Limit exceeded: open JSON-RPC WebSockets for this key'),
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorName = keyof typeof ERRORS;

/** An error from the catalogue, with an optional detail that never contains an API key. */
export class GatewayError extends Error {
  readonly entry: CatalogueEntry;
  /** What went wrong inside (an upstream's address, an SDK message): for the operator's log line, never an answer. */
  internal?: string;
  constructor(
    readonly errorName: ErrorName,
    /** Appended to the message, or the values of its `{detail}`s in order. */
    detail?: string | readonly string[],
    readonly data?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    // A GatewayError is an answer, not a fault: its stack is never read, and capturing one was most of what a refusal
    // cost (about 10 us, a GatewayError line of the gateway's profile under a flood of keyless requests).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(withDetail(ERRORS[errorName].message, detail));
    Error.stackTraceLimit = stackTraceLimit;
    this.entry = ERRORS[errorName];
  }
  get http(): number {
    return this.entry.http;
  }
  get rpcCode(): number {
    return this.entry.rpc;
  }
}

const DETAIL = '{detail}';

function withDetail(message: string, detail: string | readonly string[] | undefined): string {
  if (message.includes(DETAIL)) {
    const values = typeof detail === 'string' ? [detail] : (detail ?? []);
    let i = 0;
    return message.replace(/\{detail\}/g, () => values[i++] ?? '');
  }
  if (!detail || detail.length === 0) return message;
  return joinDetail(message, typeof detail === 'string' ? detail : detail.join(', '));
}

/** `Message: detail`, or after a message that is already a sentence, the detail as the next one. */
function joinDetail(message: string, detail: string): string {
  return message.endsWith('.') ? `${message} ${detail.charAt(0).toUpperCase()}${detail.slice(1)}` : `${message}: ${detail}`;
}

/** A catalogue error whose cause stays in the log: the client gets the catalogue's words (and `detail`, if any). */
export function hidingCause(name: ErrorName, internal: string, detail?: string | readonly string[]): GatewayError {
  const err = new GatewayError(name, detail);
  err.internal = internal;
  return err;
}

export function isGatewayError(err: unknown): err is GatewayError {
  return err instanceof GatewayError;
}
