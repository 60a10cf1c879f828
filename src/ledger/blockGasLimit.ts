/**
 * A block's gas limit, a ledger fact that changed with the network's throttle. Until services release 0.69 the
 * ledger allowed 15M gas a second over blocks of about two seconds: 30M a block. From 0.69 (HIP-1249, throttling by
 * operation duration) a block holds up to 150M. The mirror node names the release that wrote each block
 * (`hapi_version`), so an old block keeps the limit it was built under.
 */
const LIMITS: ReadonlyArray<{ from: readonly [number, number, number]; gasLimit: number }> = [
  { from: [0, 69, 0], gasLimit: 150_000_000 },
  { from: [0, 0, 0], gasLimit: 30_000_000 },
];

/** Without a readable version the block cannot be dated: the older, smaller limit, which every release allowed. */
const UNDATED = 30_000_000;

function parseVersion(v: string | null | undefined): [number, number, number] | null {
  // A release candidate or build suffix (`0.69.0-rc.1`) belongs to its release.
  const m = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(v ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function atLeast(v: readonly number[], from: readonly number[]): boolean {
  for (let i = 0; i < from.length; i++) if (v[i] !== from[i]) return v[i] > from[i];
  return true;
}

export function blockGasLimit(hapiVersion: string | null | undefined): number {
  const v = parseVersion(hapiVersion);
  if (!v) return UNDATED;
  return LIMITS.find((l) => atLeast(v, l.from))?.gasLimit ?? UNDATED;
}
