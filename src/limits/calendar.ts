/** Quotas count per calendar month in UTC; `YYYY-MM` names the month in keys and in the usage store. */
export function monthOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** Milliseconds from `ms` until the first instant of the next UTC month. */
export function msUntilNextMonth(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - ms;
}
