/** Ledger identifiers and clocks: entity ids, long-zero addresses, transaction ids, consensus timestamps. */

export const entityId = (num: number) => `0.0.${num}`;

/** Parses `0.0.<num>` (shard and realm 0 only, as on the sandbox); undefined for anything else. */
export function entityNum(id: string): number | undefined {
  const m = /^0\.0\.(\d{1,15})$/.exec(id);
  return m ? Number(m[1]) : undefined;
}

/** The EVM address the ledger gives an entity without a key-derived one: 12 zero bytes, then the number. */
export function longZeroAddress(num: number): string {
  return `0x${num.toString(16).padStart(40, '0')}`;
}

/** The entity number a long-zero address names; undefined for any other address. */
export function longZeroNum(address: string): number | undefined {
  const a = address.toLowerCase();
  return /^0x0{24}[0-9a-f]{16}$/.test(a) ? Number(BigInt(a)) : undefined;
}

/** `0.0.<payer>-<seconds>-<9-digit nanos>`, the mirror node's spelling of a transaction id. */
export function transactionIdString(payer: string, validStartSeconds: bigint | number, validStartNanos: number): string {
  return `${payer}-${validStartSeconds}-${String(validStartNanos).padStart(9, '0')}`;
}

/** A transaction id in the mirror node's spelling, whether its nanos were padded or not. */
export function canonicalTransactionIdString(id: string): string {
  return id.replace(/-(\d{1,9})$/, (_, nanos: string) => `-${nanos.padStart(9, '0')}`);
}

/** Nanoseconds since the epoch from `<seconds>.<nanos>` (nanos of any width up to 9, or none). */
export function timestampNanos(ts: string): bigint {
  const [seconds, nanos = ''] = ts.split('.');
  return BigInt(seconds) * 1_000_000_000n + BigInt(nanos.padEnd(9, '0'));
}

/** `<seconds>.<9-digit nanos>` from nanoseconds since the epoch. */
export function timestampString(ns: bigint): string {
  return `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
}

/** A record file's name, `2026-11-22T03_26_33.000000000Z.rcd.gz`, from its first consensus timestamp. */
export function recordFileName(ns: bigint): string {
  const iso = new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 19).replaceAll(':', '_');
  return `${iso}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}Z.rcd.gz`;
}

/** Consensus time: wall-clock nanoseconds, but strictly increasing even when the clock stalls or steps back. */
export class ConsensusClock {
  #last = 0n;
  next(): bigint {
    const now = BigInt(Date.now()) * 1_000_000n;
    this.#last = now > this.#last ? now : this.#last + 1n;
    return this.#last;
  }
  get last(): bigint {
    return this.#last;
  }
}
