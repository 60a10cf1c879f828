/** The `eth_call` / `eth_estimateGas` transaction param as the mirror node's call request. */
import type { CallRequest } from '../ledger/call.js';
import { weibarToTinybar } from '../ledger/convert.js';
import { address, data, object, quantity } from './params.js';

/** A GenericTransaction param as the mirror node's call request (value in tinybar, gas capped at maxGas). */
export function callRequest(txParam: unknown, block: string, estimate: boolean, maxGas: number): CallRequest {
  const tx = object(txParam, 0);
  const input = tx.input ?? tx.data;
  const req: CallRequest = { block, estimate };
  if (tx.to !== undefined && tx.to !== null) req.to = address(tx.to, 'transaction.to');
  if (tx.from !== undefined && tx.from !== null) req.from = address(tx.from, 'transaction.from');
  if (input !== undefined && input !== null) req.data = data(input, 'transaction.input');
  if (tx.gas !== undefined && tx.gas !== null) {
    const gas = quantity(tx.gas, 'transaction.gas');
    req.gas = Number(gas > BigInt(maxGas) ? BigInt(maxGas) : gas);
  }
  if (tx.value !== undefined && tx.value !== null) req.value = Number(weibarToTinybar(quantity(tx.value, 'transaction.value')));
  return req;
}
