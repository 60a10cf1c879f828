/**
 * What the hbar spending limits keep: tinybar spent per budget scope and window. The key store persists settled spend
 * (so neither a gateway nor a Redis restart forgets it); reservations of writes still in flight live beside it, in
 * this instance or in Redis (hbarReservations.ts).
 */

/** Settled spend of one budget scope in one window. */
export interface HbarSpendRow {
  /** `operator:<network>`, `plan:<plan>:<network>` or `key:<key id>:<network>`. */
  scope: string;
  /** Start of the window, ms since the epoch. */
  window: number;
  tinybar: number;
}

/** Where settled spend is persisted: the key store (embedded journal or Postgres). */
export interface HbarSpendStore {
  /** Adds to the rows' totals, atomically. */
  addHbarSpend(rows: HbarSpendRow[]): Promise<void>;
  /** Settled spend of each scope in the window, in the order asked (0 for none). */
  hbarSpend(scopes: string[], window: number): Promise<number[]>;
}

/** Windows start at multiples of their length since the epoch, so every instance agrees when one resets. */
export function windowOf(now: number, windowMs: number): number {
  return Math.floor(now / windowMs) * windowMs;
}
