/** The month every charge asks about is almost always the one before: remember its bounds rather than format a date. */
let current = { from: 0, to: 0, month: '' };

/** Quotas count per calendar month in UTC; `YYYY-MM` names the month in keys and in the usage store. */
export function monthOf(ms: number): string {
  if (ms >= current.from && ms < current.to) return current.month;
  const d = new Date(ms);
  const month = `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  current = { from: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), to: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1), month };
  return month;
}

/** Milliseconds from `ms` until the first instant of the next UTC month. */
export function msUntilNextMonth(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - ms;
}
