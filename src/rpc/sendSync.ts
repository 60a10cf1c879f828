/**
 * What eth_sendRawTransactionSync (EIP-7966) means on every chain: the optional timeout, the wait for the receipt, and
 * the error when the wait runs out (code 4, the transaction hash in `data`, so the client can keep polling).
 */
import { GatewayError } from '../errors.js';

export const SEND_SYNC = 'eth_sendRawTransactionSync';

export interface SyncWaitLimits {
  /** The wait when the call names none, or an invalid one. */
  defaultMs: number;
  /** The longest wait a call may ask for. */
  maxMs: number;
}

/**
 * The wait in ms. EIP-7966 makes the timeout a QUANTITY, viem sends a JSON number: both are read. An invalid one
 * takes the default as the EIP says; one above the cap is cut to it.
 */
export function syncWaitMs(param: unknown, limits: SyncWaitLimits): number {
  let ms: number | undefined;
  if (typeof param === 'number' && Number.isSafeInteger(param)) ms = param;
  else if (typeof param === 'string' && /^0x[0-9a-fA-F]{1,13}$/.test(param)) ms = Number.parseInt(param, 16);
  if (ms === undefined || ms <= 0) return limits.defaultMs;
  return Math.min(ms, limits.maxMs);
}

export function syncTimeout(hash: string | undefined, waitedMs: number): GatewayError {
  return new GatewayError('SEND_SYNC_TIMEOUT', `waited ${waitedMs} ms`, hash);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks until an answer comes or the deadline (epoch ms) passes; waits double from 20 ms up to 500 ms between asks. */
export async function pollUntil<T>(look: () => Promise<T | null | undefined>, deadline: number): Promise<T | undefined> {
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    const found = await look();
    if (found !== null && found !== undefined) return found;
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    await sleep(Math.min(wait, left));
  }
}
