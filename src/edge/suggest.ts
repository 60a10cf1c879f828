/**
 * The closest network ids to a mistyped one, for a 404 that says what was meant: `etherium-sepolia` finds
 * `ethereum-sepolia`, and `ethereum-mainnet` finds `ethereum` (mainnet has no suffix).
 */
export function closestNetworks(wanted: string, ids: string[], max = 3): string[] {
  const exactChain = wanted.endsWith('-mainnet') ? wanted.slice(0, -'-mainnet'.length) : undefined;
  if (exactChain && ids.includes(exactChain)) return [exactChain];
  const bound = Math.max(2, Math.floor(wanted.length / 3));
  return ids
    .map((id) => ({ id, d: distance(wanted, id) }))
    .filter(({ d }) => d <= bound)
    .sort((a, b) => a.d - b.d || a.id.localeCompare(b.id))
    .slice(0, max)
    .map(({ id }) => id);
}

/** A segment worth naming back: short, network-shaped, and never anything like a key. */
export function nameable(segment: string): boolean {
  return /^[a-z0-9][a-z0-9-]{0,39}$/i.test(segment) && !/^pk_/i.test(segment);
}

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}
