/**
 * The services (HAPI) version the sandbox answers as, in its version query and in its record files (the mirror node's
 * `hapi_version` of a block): that of the consensus node under the official relay's acceptance and conformity CI
 * (v0.77.0-rc.6, its conformity workflow), whose behaviour the sandbox follows where versions differ (gas refunds,
 * gasCharging.ts). Clients read it: the official relay takes a block's gas limit from it (150,000,000 from 0.69 on).
 */
export const HAPI_VERSION = { major: 0, minor: 77, patch: 0 } as const;

/** `major.minor.patch`, as the mirror node writes it. */
export const HAPI_VERSION_STRING = `${HAPI_VERSION.major}.${HAPI_VERSION.minor}.${HAPI_VERSION.patch}`;
