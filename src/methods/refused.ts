/**
 * Methods the official relay knows and always refuses with its predefined.UNSUPPORTED_METHOD (its eth.ts stubs, and the
 * engine_ namespace in its rpcMethodDispatcher), rather than calling them not found as it does an unknown name. Tools
 * tell the two apart, so the ledger relay answers them the same way.
 */
const REFUSED = new Set([
  'eth_blobBaseFee',
  'eth_coinbase',
  'eth_createAccessList',
  'eth_getProof',
  'eth_getWork',
  'eth_protocolVersion',
  'eth_sendTransaction',
  'eth_sign',
  'eth_signTransaction',
  'eth_simulateV1',
  'eth_submitHashrate',
]);

export function isRefusedMethod(name: string): boolean {
  return REFUSED.has(name) || name.startsWith('engine_');
}
